"""report.md of a study, written from the report's JSON document (study_report.build_report) only, so
everything the Markdown says is also in report.json."""

from .bootstrap import DEFAULT_LEVEL, FASTER, NOT_DISTINGUISHABLE, SLOWER, interval_text, repetitions_text
from .study import value_text
from .tail_check import check_text
from .tail_extrapolation import crossover_text

_WORDS_PER_COUNT = {"compute cores per socket": "compute core per socket", "compute cores per node":
                    "compute core per node"}


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def _f(value, digits=1, suffix=""):
    return "n/a" if value is None else f"{value:.{digits}f}{suffix}"


def _count(n, noun):
    """'1 socket', '2 sockets', '2 cores per socket'."""
    head, _, tail = noun.partition(" ")
    plural = head if n == 1 else head + "s"
    return f"{n} {plural}" + (f" {tail}" if tail else "")


def _cores(n, words):
    return f"{n} {_WORDS_PER_COUNT.get(words, words) if n == 1 else words}"


def _wrong(ids):
    """The mark after a number that rests on a configuration whose placement was wrong (ids: report.json's
    'placement_wrong' of that number)."""
    return " (placement wrong)" if ids else ""


def _ids(ids):
    return ", ".join(f"`{i}`" for i in ids)


def _table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return lines


def _job_lines(report):
    job, machine, study = report["job"], report["machine"], report["study"]
    scheduler = job.get("scheduler") or "unknown scheduler"
    nodes = job.get("nodes")
    job_text = f"{scheduler} job {job.get('job_id', 'n/a')}"
    if nodes is not None:
        job_text += f" on {nodes} node{'s' if nodes != 1 else ''}"
    details = [f"{k} {job[k]}" for k in ("host", "launcher") if job.get(k)]
    if details:
        job_text += f" ({', '.join(details)})"
    finished = job.get("finished_utc") or "not finished (the job was cut short or is still running)"
    machine_text = machine.get("summary") or "not recorded"
    extra = [_count(machine[k], w) for k, w in (("sockets", "socket"), ("numa_nodes", "NUMA node"),
                                                 ("cores_per_socket", "core per socket")) if machine.get(k) is not None]
    if extra:
        machine_text += f" ({', '.join(extra)})"
    runs = report["runs"]
    left_out = [f"{runs[k]} {k}" for k in ("failed", "timeout", "pending") if runs[k]]
    if runs["verification_failed"]:
        left_out.append(f"{runs['verification_failed']} failed verification")
    runs_text = f"{runs['counted']} of {runs['total']} count" + (f" ({', '.join(left_out)})" if left_out else "")
    placement = runs["placement"]
    if not runs["counted"]:
        placement_text = "no run counts"
    elif placement["not_audited"] == runs["counted"]:
        placement_text = "not audited (run.json without a placement audit)"
    else:
        placement_text = "of the runs that count: " + ", ".join(
            f"{placement[k]} {k.replace('_', ' ')}" for k in ("ok", "wrong", "not_audited") if placement[k])
    rows = [("study file", f"`{study['file']}`" if study.get("file") else "not recorded"),
            ("study directory", f"`{report['study_directory']}`"),
            ("job", job_text), ("started", job.get("started_utc") or "not recorded"), ("finished", finished),
            ("machine", machine_text),
            ("machine (run.json)", report["run_facts"]["machine"]), ("grid", report["run_facts"]["grid"]),
            ("kernel", report["run_facts"]["kernel"]),
            ("T (time steps per sweep)", report["run_facts"]["steps_per_sweep"]),
            ("repetitions", _repetitions_text(report)), ("runs", runs_text),
            ("placement", placement_text)]
    return ["| | |", "|---|---|"] + [f"| {k} | {_cell(v)} |" for k, v in rows]


def _repetitions_text(report):
    """The fixed repetitions, and the headline pair's extra rounds of an adaptive study."""
    text = f"{value_text(report['repetitions'])} per configuration"
    adaptive = report.get("adaptive")
    if not adaptive:
        return text
    pair = " and ".join(f"`{h.get('configuration')}`" for h in adaptive.get("headline") or [])
    last = (adaptive.get("rounds") or [{}])[-1]
    return (f"{text}; the headline pair {pair} (adaptive) ran {value_text(last.get('repetitions'))}, stopped: "
            f"{adaptive.get('stopped') or 'not recorded'}")


def _statistics_lines(report):
    stats = report["statistics"]
    return ["## Statistics", "",
            f"Every comparison below is the ratio of two configurations' median throughputs with its {stats['level_percent']:g} % "
            f"percentile bootstrap interval ({stats['resamples']} resamples, seed {stats['seed']}, so the report is "
            f"reproducible). Decision rule: {stats['decision_rule']}. Ratios of two configurations with the same "
            "repetitions are paired by repetition: the study runner interleaves the repetitions (repetition-major), "
            "so drift of the machine over the study cancels in a paired ratio. Each interval says how many "
            "repetitions it rests on; with 3 a resampled median can only be one of the 3 measured values, so the "
            "interval is coarse (about the range of the repetitions).", ""]


def _verdict_text(ratio, more="faster", less="slower"):
    """'faster', 'slower' or 'not distinguishable' with the ratio, its interval and what it rests on."""
    if ratio is None:
        return "no result"
    word = {FASTER: more, SLOWER: less, NOT_DISTINGUISHABLE: NOT_DISTINGUISHABLE}[ratio["verdict"]]
    return f"{word} (ratio {interval_text(ratio)}, {repetitions_text(ratio)})"


def _axes_lines(report):
    lines = ["## Axes", ""]
    if not report["axes"]:
        return lines + ["The study has no axes: one configuration.", ""]
    rows = [(f"`{a['name']}`" + (f" ({a['short_name']})" if a["varying"] else ""),
             ", ".join(value_text(v) for v in a["values"]) + ("" if a["varying"] else " (fixed)"))
            for a in report["axes"]]
    lines += _table(["axis", "values"], rows) + [""]
    for e in report["excluded_combinations"]:
        params = " ".join(f"{k}={value_text(v)}" for k, v in (e.get("parameters") or {}).items())
        lines.append(f"- not run: {params}: {e.get('reason', 'no reason recorded')}")
    if report["excluded_combinations"]:
        lines.append("")
    return lines


def _configuration_lines(report):
    header = ["configuration", "parameters", "ranks x threads", "runs ok", "MPoints/s median [min, max]",
              "spread", "95 % interval of the median", "vs reference [95 % interval]", "vs best", "p99 step ms", "noise ampl.", "exposed halo", "verification", "placement"]
    rows = []
    for c in report["configurations"]:
        t = c["mpoints_per_second"]
        if t is None:
            throughput = "no result"
        elif t["count"] == 1:
            throughput = f"{t['median']:.2f} (1 run)"
        else:
            throughput = f"{t['median']:.2f} [{t['min']:.2f}, {t['max']:.2f}]"
        spread = "n/a" if t is None else _f(t["spread_percent"], 1, " %")
        ratio = _f(c["ratio_to_best"], 3) + _wrong(c["ratio_to_best_placement_wrong"])
        median_ci = c["mpoints_per_second_interval"]
        median_text = "n/a" if median_ci is None else \
            f"[{median_ci['low']:.2f}, {median_ci['high']:.2f}] ({repetitions_text(median_ci)})"
        vs_reference = c["ratio_to_reference"]
        reference_text = "n/a" if vs_reference is None else (
            "reference" if c["id"] == report["reference_configuration"] else
            f"{interval_text(vs_reference)} {vs_reference['verdict']}")
        rows.append((f"`{c['id']}`", c["short_label"], c["shape"], f"{c['runs_ok']}/{c['runs_total']}", throughput,
                     spread, median_text, reference_text, ratio, _f(c["step_p99_ms_median"], 3),
                     _f(c["noise_amplification_median"], 3), _f(c["halo_exposed_percent_median"], 1, " %"),
                     c["verification"], c["placement"]["text"]))
    best = report["best_configuration"]
    best_wrong = any(c["id"] == best and c["placement"]["wrong"] for c in report["configurations"])
    notes = ("Medians over the runs that count (done and not failing verification); MPoints/s with the "
             "minimum and maximum of the repetitions, spread = (max - min) / median; the bootstrap interval of the "
             "median; vs reference: median over the median of the reference configuration "
             f"(`{report['reference_configuration']}`, the study's first with a result) with the interval of the "
             "ratio and the decision rule's verdict; vs best: median over the "
             f"best median (`{best}`{', placement wrong' if best_wrong else ''}); p99 step: the 99th percentile (nearest rank: a measured value) "
             "of all ranks' step times of a run; noise "
             "amplification: mean per-step slowest rank over median rank (1 = no rank ever late); exposed halo: "
             "share of the step spent packing, waiting for and unpacking halos; placement: the placement audit "
             "of the runs that count (wrong in k/n with the kinds of problem, or not audited when run.json has "
             "no audit). A wrong placement stays in the medians: it is what the run measured.") if best else \
        "No configuration has a run that counts: there are no numbers to show."
    return ["## Configurations", ""] + _table(header, rows) + ["", notes, ""]


def _left_out_lines(report):
    lines = ["## Runs left out of the statistics", ""]
    if not report["left_out"]:
        return lines + ["None: every run counts.", ""]
    for r in report["left_out"]:
        lines.append(f"- `{r['configuration']}` rep {r['repetition']} (`{r['dir']}`): {r['reason']}")
    return lines + [""]


def _problem_line(problem):
    ranks = problem["ranks"]
    where = [problem["host"]]
    if ranks:
        where.append(f"rank{'s' if len(ranks) != 1 else ''} {', '.join(map(str, ranks))}")
    return f"  - {problem['kind']} (cause: {problem['cause']}; {', '.join(where)}): {problem['message']}"


def _placement_lines(report):
    lines = ["## Placement", ""]
    counts, wrong = report["runs"]["placement"], report["placement_wrong_runs"]
    if not wrong:
        if not counts["ok"]:
            return lines + ["Not audited: no run that counts has a placement audit in its run.json (written by a "
                            "wave3d without it), so the report cannot say whether threads ran where planned.", ""]
        rest = f"; {counts['not_audited']} of the runs that count were not audited" if counts["not_audited"] else ""
        return lines + [f"No run had a wrong placement{rest}.", ""]
    lines += ["Runs whose placement audit says wrong, with the problems it found. Their numbers stay in the "
              "medians (a wrong placement is what the run measured, not a failure), and every ratio or finding "
              "that involves their configuration says \"(placement wrong)\".", ""]
    for r in wrong:
        kinds = ", ".join(r["kinds"]) or "wrong, no problem recorded"
        lines.append(f"- `{r['configuration']}` rep {r['repetition']} (`{r['dir']}`): {kinds}"
                     + ("" if r["counts"] else " (not counted for another reason)"))
        lines += [_problem_line(p) for p in r["problems"]]
    return lines + [""]


def _saturation_lines(report):
    sat = report["saturation"]
    lines = ["## Saturation", ""]
    if sat["note"]:
        return lines + [sat["note"], ""]
    words = sat["words"]
    tolerance = 100 * sat["tolerance"]
    lines += [f"![saturation curve]({report['plots']['saturation']})", "",
              f"Saturation point: the fewest {words} within {tolerance:g} % of the line's best median, stated only when "
              "no point with more cores is faster than it by the decision rule; a line whose last point is faster "
              "than the one before is still rising and has no saturation point within the measured range.", ""]
    for line in sat["lines"]:
        points = ", ".join(f"{p['cores']}: {_point_text(p)}" for p in line["points"])
        best, s = line["best"], line["saturation"]
        if best is None:
            lines.append(f"- **{line['label']}** ({words}: MPoints/s) {points}: no result")
            continue
        lines.append(f"- **{line['label']}** ({words}: median MPoints/s) {points}; best {best['median']:.2f} at "
                     f"{best['cores']}{_wrong(best['placement_wrong'])}; "
                     f"{_saturation_text(line, s)}{_wrong(s['placement_wrong'])}")
    lines.append("")
    surplus = [line["surplus"] for line in sat["lines"] if line.get("surplus")]
    if surplus:
        lines += ["### Surplus cores and the daemon", ""]
        for line, finding in ((l, l["surplus"]) for l in sat["lines"] if l.get("surplus")):
            lines.append(f"- {line['label']}: {_surplus_text(finding, words)}")
        verdict = _surplus_verdict(surplus)
        involved = [i for f in surplus for i in f["placement_wrong"]]
        if involved:  # the verdict rests on these configurations' numbers
            verdict = verdict.removesuffix(".") + f" (placement wrong: {_ids(dict.fromkeys(involved))})."
        lines += ["", verdict, ""]
    return lines


def _saturation_text(line, s):
    v = line.get("saturation_verdict") or {}
    step = v.get("last_step")
    if v.get("verdict") == "rising":
        return (f"**still rising** at its last point ({step['to_cores']} against {step['from_cores']}: "
                f"{_verdict_text(step['ratio'])}): no saturation within the measured range")
    if v.get("verdict") == "saturated":
        beyond = "; ".join(f"{b['cores']}: {_verdict_text(b['ratio'])}" for b in v["beyond_saturation"])
        return (f"saturates at **{s['cores']}** ({100 * s['fraction_of_best']:.1f} % of the best; more cores "
                f"against it: {beyond})")
    if step is None:
        return f"fewest cores within the tolerance: {s['cores']} (one measured point: no verdict)"
    return (f"no saturation point can be stated: the last point against the one before is "
            f"{_verdict_text(step['ratio'])}, and more cores than {s['cores']} are not all indistinguishable from it")


def _point_text(point):
    if point["mpoints_per_second"] is None:
        return "no result"
    return f"{point['mpoints_per_second']['median']:.2f}{_wrong(point['placement_wrong'])}"


def _surplus_text(f, words):
    all_text = ("all " if f["all_cores_is_machine"] else "") + _cores(f["all_cores"], words)
    numbers = f"median {f['fewer_cores_median']:.2f} against {f['all_cores_median']:.2f} MPoints/s " \
              f"({f['gain_percent']:+.1f} %)"
    numbers += _wrong(f["placement_wrong"])
    verdict = _verdict_text(f.get("ratio"))
    return f"{_cores(f['fewer_cores'], words)} against {all_text}: {verdict}; {numbers}."


def _clear_win(findings):
    return any(f.get("verdict") == FASTER for f in findings)


def _surplus_verdict(findings):
    on = [f for f in findings if f["daemon"] is True]
    off = [f for f in findings if f["daemon"] is False]
    if not on:
        return "No line ran with the daemon, so the study cannot say whether surplus cores absorb it."
    if _clear_win(on) and off and _clear_win(off):
        return ("Fewer computing cores are faster with and without the daemon: the last cores do not pay even on "
                "a quiet node (the computation does not scale to them), so this is not the daemon being absorbed; "
                "compare the gains with and without it.")
    if _clear_win(on):
        qualifier = "" if off else " (the study has no daemon-off line to compare with)"
        return ("With the daemon running, leaving cores to it beats computing on all of them: the surplus-core "
                f"finding of the Lattice QCD study holds on this machine{qualifier}.")
    if any(f.get("verdict") == NOT_DISTINGUISHABLE for f in on):
        return ("With the daemon running, fewer computing cores and all of them are not distinguishable by the "
                "decision rule: more repetitions are needed to call it.")
    return ("With the daemon running, computing on every core is faster by the decision rule: surplus cores do not "
            "pay here.")


def _findings_lines(report):
    if not report["findings"]:
        return []
    lines = ["## Findings", ""]
    for f in report["findings"]:
        lines += [f"### {f['title']} (`{f['axis']}`)", ""]
        if not f["rows"]:
            lines += ["No two configurations differ only in this axis.", ""]
            continue
        base = value_text(f["baseline"])
        rows = []
        for r in f["rows"]:
            ratio = "no result" if r["ratio"] is None else f"{r['ratio']:.3f}"
            ratio += _wrong(r["placement_wrong"])
            interval = r.get("interval")
            ci = "n/a" if interval is None else f"[{interval['low']:.3f}, {interval['high']:.3f}]"
            verdict = "n/a" if interval is None else f"{interval['verdict']} ({repetitions_text(interval)})"
            rows.append((r["label"], f"{f['short_name']}={value_text(r['value'])}", _f(r["median"], 2),
                         _f(r["baseline_median"], 2), ratio, ci, verdict))
        lines += _table(["other parameters", "compared", "MPoints/s", f"MPoints/s at {base}", f"ratio to {base}",
                         "95 % interval", "verdict"], rows)
        lines += ["", "Ratios of median throughputs with their bootstrap intervals; the verdict follows the "
                      "decision rule of the Statistics section ('faster': the compared value is faster than "
                      f"{base}).", ""]
    return lines


def _step_time_lines(report):
    plots = report["plots"]
    lines = ["## Step times", "",
             "Total step time per rank and step of each configuration's median-throughput repetition:", ""]
    lines += [f"![step-time heatmaps]({p})" for p in plots["heatmaps"]]
    lines += ["", "All ranks' step times of every repetition that counts (steps after the first), p50 and p99 "
                  "marked:", ""]
    lines += [f"![step-time histograms]({p})" for p in plots["histograms"]]
    return lines + [""]


def _amplification_text(v):
    if v is None:
        return "n/a"
    if v.get("relative_difference") is None:
        return f"measured {v['measured_amplification']:.3f} (1 rank: no check)"
    return f"{v['predicted_amplification']:.3f} / {v['measured_amplification']:.3f}"


def _slowdown_cell(p):
    text = f"{p['slowdown']:.2f} [{p['slowdown_low']:.2f}, {p['slowdown_high']:.2f}]"
    return text if p["supported"] else text + "*"


def _tail_text(e):
    model = e["tail"]["model"]
    if not model["fitted"]:
        return (f"no tail fit ({model['exceedances']} of {model['samples']} delays above the "
                f"{100 * model['threshold_quantile']:g}th percentile; at least 10 needed): empirical distribution")
    return (f"GPD over the {100 * model['threshold_quantile']:g}th percentile ({model['threshold_s'] * 1e3:.3f} ms, "
            f"{model['exceedances']} of {model['samples']} delays): shape {model['shape']:+.3f}, scale "
            f"{model['scale_s'] * 1e3:.3f} ms")


def _extrapolation_lines(report):
    ext = report["extrapolation"]
    lines = ["## Jitter at scale", ""]
    entries = [e for e in ext["configurations"] if e.get("predictions")]
    if not entries:
        return lines + ["No configuration has step times (steps.csv) to extrapolate from.", ""]
    bootstrap = entries[0]["tail"]["bootstrap"]
    lines += ["Each configuration's per-rank step times of all its counting repetitions, each rank's delays "
              "measured from its own median step, as the noise, uncoordinated between ranks: the expected step of "
              "N bulk-synchronous ranks (base + expected maximum of N delays), as a slowdown over the "
              "configuration's own expected step on one rank (model and assumptions: python/tools/README.md). "
              "Beyond the measured delays the distribution is a generalised Pareto tail fitted to the delays "
              "above their 95th percentile, spliced with the measured values below it. The tail is checked on "
              "held-out data (each repetition left out in turn, or one half of the steps of a single repetition): "
              "at exceedance probabilities from 5 % down to the smallest the held-out delays can test (5 expected "
              "exceedances) the observed count must lie within 3 standard deviations of the predicted one, and the "
              "held-out excesses must pass a Kolmogorov-Smirnov test (p >= 0.01). The data support N up to 1/p for "
              "the smallest exceedance probability p the check passed; when it fails, only up to 1/0.05 = 20. "
              f"Intervals: {100 * DEFAULT_LEVEL:g} % percentile bootstrap, {bootstrap['resamples']} "
              f"resamples (repetitions drawn with replacement, and inside each moving blocks of "
              f"{bootstrap['block_steps']} steps with all ranks of a step together), the tail refitted in each.",
              "", f"![jitter extrapolation]({report['plots']['extrapolation']})", ""]
    counts = [n for n in entries[0]["predictions"] if n["ranks"] >= 100]
    header = ["configuration", "reps", "ranks", "step ms (1 rank)", "amplification model / measured",
              "data support N <="]
    header += [f"N={p['ranks']:.0e}".replace("e+0", "e") for p in counts]
    rows, limited = [], False
    for e in entries:
        cells = [e["label"] + _wrong(e["placement_wrong"]), str(len(e["repetitions"])), str(e["ranks"]),
                 f"{e['one_rank_step_s'] * 1e3:.3f}", _amplification_text(e["validation"]), str(e["supported_ranks"])]
        for p in e["predictions"]:
            if p["ranks"] >= 100:
                cells.append(_slowdown_cell(p))
                limited |= not p["supported"]
        rows.append(cells)
    lines += _table(header, rows)
    lines.append("")
    lines.append("Slowdown [95 % interval].")
    if limited:
        lines.append("\\* N beyond what the data support: the tail model's extrapolation, not a prediction the "
                     "measurement vouches for.")
    lines.append("")
    for e in entries:
        lines.append(f"- {e['label']}: {_tail_text(e)}; {check_text(e['tail']['held_out_check'])}.")
    for e in ext["configurations"]:
        if not e.get("predictions"):
            lines.append(f"- {e['label']}{_wrong(e['placement_wrong'])}: not extrapolated ({e['note']})")
    lines.append("")
    reserved = ext["reserved"]
    if reserved is not None:
        lines += ["### Reserving cores", "",
                  f"At equal rank count: {reserved['assumptions']['equal_ranks']}. At equal node count: "
                  f"{reserved['assumptions']['equal_nodes']}. The crossover is the N (or node count) from which "
                  "reserving wins up to the end of the search; its interval comes from the same resamples, "
                  "'never' counting as beyond the search.", ""]
        if reserved["note"]:
            lines.append(reserved["note"])
        for p in reserved["pairs"]:
            head = f"- `{p['reserved']}` ({p['reserved_label']}) against `{p['all_cores']}` ({p['all_cores_label']})"
            if p["note"]:
                lines.append(f"{head}: {p['note']}")
                continue
            rpn = p["ranks_per_node"]
            lines.append(f"{head}, ranks per node {rpn['reserved']} against {rpn['all_cores']}: reserving wins, "
                         f"uncoordinated noise, at equal rank count {p['verdict']['equal_ranks']}; at equal node "
                         f"count {p['verdict']['equal_nodes']}; co-scheduled noise (equal rank count): "
                         f"{p['verdict']['co_scheduled']}{_wrong(p['placement_wrong'])}.")
        lines.append("")
    return lines


def format_markdown(report):
    study = report["study"]
    lines = [f"# Study {study['name']}", ""]
    if study.get("description"):
        lines += [study["description"], ""]
    lines += _job_lines(report) + [""]
    lines += _statistics_lines(report)
    lines += _axes_lines(report)
    lines += _configuration_lines(report)
    lines += _left_out_lines(report)
    lines += _placement_lines(report)
    lines += ["## Throughput", "", f"![throughput per configuration]({report['plots']['throughput']})", ""]
    lines += _saturation_lines(report)
    lines += _findings_lines(report)
    lines += _step_time_lines(report)
    lines += _extrapolation_lines(report)
    return "\n".join(lines).rstrip("\n") + "\n"
