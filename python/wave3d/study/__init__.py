"""The study runner: expands a study configuration (configs/studies/*.toml) into runs, executes them in
one batch allocation (srun steps) or locally (mpirun), with repetitions, and records everything in one
study directory. The entry point is jobscripts/wave3d-study."""
