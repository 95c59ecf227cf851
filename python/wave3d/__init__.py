"""wave3d's Python side: `files` (the names and keys of what the wave3d executable writes, the one
place Python spells them), `analysis` (loaders, the jitter model, study reports and plots) and `study`
(the study runner behind jobscripts/wave3d-study). The command-line tools are in python/tools."""
