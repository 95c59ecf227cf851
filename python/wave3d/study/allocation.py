"""What the scheduler gave the job on each node, from its environment: a study whose configurations need
more CPUs than that is refused before it runs, instead of running squeezed onto fewer cores."""
import os

from .settings import StudyError

# In the order they are trusted, per scheduler. Slurm's PBS compatibility sets the Slurm ones as well.
CPU_VARIABLES = {
    "slurm": ["SLURM_CPUS_ON_NODE"],
    "pbs": ["PBS_NUM_PPN", "NCPUS", "SLURM_CPUS_ON_NODE"],
}


def cpus_per_node(scheduler, env):
    """(CPUs per node, where that came from), or (None, why not known)."""
    if scheduler == "local":
        return len(os.sched_getaffinity(0)), "this process's CPU affinity"
    for name in CPU_VARIABLES.get(scheduler, []):
        value = env.get(name, "")
        if value.isdigit() and int(value) > 0:
            return int(value), name
    return None, f"none of {', '.join(CPU_VARIABLES.get(scheduler, []))} is set"


def cpus_needed(plan, machine):
    """CPUs of a node that the plan's ranks use: their compute cores and progress cores, every hardware
    thread of each (a Slurm CPU is a hardware thread)."""
    cores = sum(len(rank["cores"]) + (rank["progress_core"] is not None) for rank in plan["ranks"])
    return cores * machine["pus_per_core"]


def check_fits(configurations, available, source):
    if available is None:
        return
    for c in configurations:
        if c["cpus_per_node"] > available:
            raise StudyError(f"configuration {c['label']} needs {c['cpus_per_node']} CPUs per node, but the job has "
                             f"{available} ({source}): ask for whole nodes (sbatch --exclusive, qsub -l "
                             "nodes=N:ppn=<cores>) or change the study's placement")
