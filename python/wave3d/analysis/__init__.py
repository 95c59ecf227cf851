"""Analysis of wave3d results: loaders for results directories and detour traces, the bulk-synchronous
jitter model with exact order statistics, reports and plots. See python/tools/README.md."""
