"""An adaptive study: after the fixed repetitions, more rounds of the two headline configurations until
the interval of their ratio is narrow enough, within a number of repetitions and a time budget.

The headline is the ratio of A's median throughput to B's, with the paired percentile bootstrap interval
the report uses (wave3d/paired_bootstrap.py). After the fixed repetitions and after every round the
runner asks, in this order: did a headline run fail (then the interval rests on less than was planned,
and more runs of a configuration that fails do not help), is (high - low) / ratio at most the target, has
each headline configuration reached max_repetitions, and would another round still end within the
budget (a round is taken to last as long as the longest so far).

A round runs only A and B, A first, as the fixed repetitions do (repetition-major): the two runs of a
round are neighbours in time, so drift of the machine cancels in their ratio. The other configurations
keep their fixed repetitions: the stopping rule is about the headline alone, and running every
configuration again would spend the budget on intervals nobody asked to narrow. The report pairs two
configurations by repetition only when they have the same repetitions, so a comparison of a headline
configuration with another one is unpaired (and wider) after extra rounds."""
import dataclasses
import time

from ..paired_bootstrap import LEVEL, RESAMPLES, SEED, paired_ratio_interval, relative_width
from .record import planned_run, utc_now
from .settings import StudyError

NARROW_ENOUGH = "narrow enough"
MAX_REPETITIONS = "max_repetitions"
BUDGET = "budget"
RUN_FAILED = "a run failed"
INTERRUPTED = "interrupted"  # the runner was told to stop (the job's time limit)
ANOTHER_ROUND = "another round"


def select_configuration(path, index, selection, configs):
    """The one configuration whose id is `selection`, or whose label has every axis=value word of it."""
    words = set(selection.split())
    matches = [c for c in configs if c["id"] == selection]
    matches = matches or [c for c in configs if words and words <= set(c["label"].split())]
    where = f"{path}: study.headline[{index}] = {selection!r}"
    if len(matches) == 1:
        return matches[0]
    if not matches:
        listing = "; ".join(c["label"] for c in configs[:8]) + ("; ..." if len(configs) > 8 else "")
        raise StudyError(f"{where} matches no configuration; allowed: a configuration's id, or axis=value words "
                         f"of its label ({listing}; --dry-run lists them)")
    raise StudyError(f"{where} matches {len(matches)} configurations ({'; '.join(c['label'] for c in matches[:4])}"
                     f"{'; ...' if len(matches) > 4 else ''}); allowed: words that pick exactly one")


@dataclasses.dataclass
class Adaptive:
    headline: list  # the configurations A and B
    target: float  # the largest (high - low) / ratio that is narrow enough
    max_repetitions: int
    budget_s: float
    record: dict  # study.json "adaptive", kept current


def plan_adaptive(study, configs):
    """None for a study without a headline; else its headline configurations and bounds, and the record
    study.json will carry. Raises StudyError when the headline does not name two configurations."""
    settings, path = study.settings, study.path
    selections = settings["study.headline"]
    if not selections:
        return None
    a, b = (select_configuration(path, i, s, configs) for i, s in enumerate(selections))
    if a is b:
        raise StudyError(f"{path}: study.headline = {selections!r}: both pick {a['label']!r}; A and B must be "
                         "different configurations")
    record = {
        "headline": [{"selection": s, "configuration": c["id"], "label": c["label"]}
                     for s, c in zip(selections, (a, b))],
        "statistic": "median mpoints_per_second of A over B's, paired by repetition, percentile bootstrap",
        "level": LEVEL, "resamples": RESAMPLES, "seed": SEED,
        "target_relative_width": settings["study.target_relative_width"],
        "max_repetitions": settings["study.max_repetitions"],
        "budget_s": settings["study.adaptive_budget_seconds"],
        "spent_s": 0.0,
        "repetitions": settings["study.repetitions"],
        "rounds": [],
        "stopped": None,
    }
    return Adaptive([a, b], settings["study.target_relative_width"], settings["study.max_repetitions"],
                    settings["study.adaptive_budget_seconds"], record)


def describe_adaptive(adaptive, repetitions):
    a, b = adaptive.headline
    return (f"adaptive: headline {a['id']} / {b['id']}; after {repetitions} repetition(s), more rounds of these two "
            f"while the {LEVEL:.0%} interval of the ratio is wider than {adaptive.target:.1%} of it, up to "
            f"{adaptive.max_repetitions} repetitions each and {adaptive.budget_s} s")


def counts(run):
    return run["status"] == "done" and run.get("verification") != "FAILED" and run.get("mpoints_per_second") is not None


def headline_runs(runs, adaptive):
    """{repetition: (A's run, B's run)} for the repetitions of the headline that have run or are running."""
    a, b = (c["id"] for c in adaptive.headline)
    by_key = {(r["configuration"], r["repetition"]): r for r in runs if r["status"] != "pending"}
    return {rep: (by_key[(a, rep)], by_key[(b, rep)]) for (cid, rep) in by_key if cid == a and (b, rep) in by_key}


def round_time(pair):
    durations = [r["duration_s"] for r in pair]
    return None if None in durations else sum(durations)


def stop_reason(failed, width, target, repetitions, max_repetitions, spent_s, next_round_s, budget_s):
    """Why the study stops adding rounds, or None for another round; the checks in the order of the
    module's description."""
    if failed:
        return RUN_FAILED
    if width <= target:
        return NARROW_ENOUGH
    if repetitions >= max_repetitions:
        return MAX_REPETITIONS
    if spent_s + next_round_s > budget_s:
        return BUDGET
    return None


def evaluate(adaptive, runs, round_times, spent_s):
    """This round's entry of study.json's adaptive.rounds, with its decision."""
    pairs = headline_runs(runs, adaptive)
    failed = any(not counts(r) for pair in pairs.values() for r in pair)
    good = [pairs[rep] for rep in sorted(pairs) if all(counts(r) for r in pairs[rep])]
    interval = paired_ratio_interval([a["mpoints_per_second"] for a, _ in good],
                                     [b["mpoints_per_second"] for _, b in good])
    width = relative_width(interval) if interval else None
    next_round_s = max(round_times, default=0.0)
    reason = stop_reason(failed or interval is None, width, adaptive.target, len(pairs), adaptive.max_repetitions,
                         spent_s, next_round_s, adaptive.budget_s)
    return {"round": len(adaptive.record["rounds"]), "repetitions": len(pairs), "paired_repetitions": len(good),
            "ratio": interval and interval["estimate"], "low": interval and interval["low"],
            "high": interval and interval["high"], "relative_width": width,
            "next_round_estimate_s": round(next_round_s, 3), "spent_s": round(spent_s, 3),
            "decision": reason or ANOTHER_ROUND, "finished_utc": utc_now()}


def round_line(adaptive, entry):
    a, b = (c["id"] for c in adaptive.headline)
    if entry["ratio"] is None:
        interval = "no interval"
    else:
        interval = (f"{entry['ratio']:.3f} [{entry['low']:.3f}, {entry['high']:.3f}], width "
                    f"{entry['relative_width']:.1%} of the ratio (target {adaptive.target:.1%})")
    if entry["decision"] == ANOTHER_ROUND:
        decision = (f"another round (about {entry['next_round_estimate_s']:.1f} s; {entry['spent_s']:.1f} of "
                    f"{adaptive.budget_s} s spent)")
    else:
        decision = f"stop: {entry['decision']}"
    return (f"[headline round {entry['round']}, {entry['repetitions']} repetition(s)] {a} / {b}: {interval}; "
            f"{decision}")


def run_rounds(adaptive, runs, run_one, save, note):
    """Evaluates the headline after the fixed repetitions and adds rounds (appended to `runs`, run through
    run_one, which executes, saves and prints a run) until a reason to stop; records every round and the
    reason in adaptive.record. Interrupted (from run_one) passes through; the caller records it."""
    record = adaptive.record
    round_times = [t for t in map(round_time, headline_runs(runs, adaptive).values()) if t is not None]
    spent_s = 0.0
    while True:
        entry = evaluate(adaptive, runs, round_times, spent_s)
        record["rounds"].append(entry)
        record["repetitions"] = entry["repetitions"]
        note(round_line(adaptive, entry))
        if entry["decision"] != ANOTHER_ROUND:
            record["stopped"] = entry["decision"]
            save()
            return
        repetition = entry["repetitions"] + 1
        planned = [dict(planned_run(c, repetition), adaptive_round=entry["round"] + 1) for c in adaptive.headline]
        runs.extend(planned)
        save()
        began = time.monotonic()
        try:
            for run in planned:
                run_one(run)
        finally:
            took = time.monotonic() - began
            spent_s += took
            record["spent_s"] = round(spent_s, 3)
        round_times.append(took)
