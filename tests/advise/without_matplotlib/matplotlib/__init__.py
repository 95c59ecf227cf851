# Put first on PYTHONPATH by the advise_without_matplotlib test: makes `import matplotlib` fail as it does
# where matplotlib is not installed.
raise ImportError("No module named 'matplotlib' (hidden by the test)")
