"""The extrapolation as text: per scenario a table over the rank counts, the check against the measured
run, and the all-cores versus reserved-core comparison."""

from .model import CO_SCHEDULED, UNCOORDINATED
from .tail_check import check_text


def _ms(seconds):
    return f"{seconds * 1e3:.3f}"


def _count(n, noun):
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _probability(p):
    return "n/a" if p is None else f"{p:.4f}"


def _percent(fraction):
    return "n/a" if fraction is None else f"{100 * fraction:+.1f} %"


def _monte_carlo_cell(mc):
    if mc is None:
        return "-"
    verdict = "ok" if mc["agrees"] else "DIFFERS"
    return f"{_ms(mc['step_s'])} +- {_ms(mc['stderr_s'])} {verdict}"


def _run_line(entry):
    run = entry["run_summary"]
    shape = f"{_count(run['ranks'], 'rank')} x {_count(run['threads_per_rank'], 'thread')}"
    return (f"  run: {entry['run']} ({shape}, {run['steps']} steps after the first; host {run.get('host')}, "
            f"grid {run.get('grid')}, layout {run.get('layout')}, reserve {run.get('reserve')})")


def _noise_lines(entry):
    facts = entry["facts"]
    base = f"  base: {_ms(entry['base_s'])} ms"
    if "rank_base_min_s" in facts:
        base += (f" (median over ranks of each rank's {facts['base_quantile']:g}-quantile total step; "
                 f"the ranks' range {_ms(facts['rank_base_min_s'])} .. {_ms(facts['rank_base_max_s'])} ms)")
    d = entry["delay"]
    lines = [f"  delays: {entry['source']}; {entry['delay']['samples']} samples", base,
             f"  one rank: expected step {_ms(entry['one_rank_step_s'])} ms (base + mean delay)",
             f"  delay per rank and step: mean {_ms(d['mean_s'])} ms, median {_ms(d['p50_s'])} ms, "
             f"p99 {_ms(d['p99_s'])} ms, max {_ms(d['max_s'])} ms"]
    for trace in facts.get("traces", []):
        lines.append(f"  trace {trace['path']}: {trace['detours']} detours, mean "
                     f"{_ms(trace['mean_duration_ns'] * 1e-9)} ms, max {_ms(trace['max_duration_ns'] * 1e-9)} ms, "
                     f"every {_ms(trace['mean_interval_ns'] * 1e-9)} ms on average")
    return lines


def _validation_lines(v):
    if v is None:
        return []
    ranks = _count(v["ranks"], "rank")
    rel_text = _percent(v["relative_difference"])
    if "note" in v:
        rel_text += f" ({v['note']})"
    lines = [f"  check at the run's {ranks}: predicted amplification {v['predicted_amplification']:.3f}, "
             f"measured {v['measured_amplification']:.3f} (run.json noise_amplification), "
             f"relative difference {rel_text}"]
    if v["measured_step_s"] is not None:
        step_rel = (v["predicted_step_s"] - v["measured_step_s"]) / v["measured_step_s"]
        lines.append(f"  mean step of the slowest rank at {ranks}: predicted {_ms(v['predicted_step_s'])} ms, "
                     f"measured {_ms(v['measured_step_s'])} ms (run.json per_step_max_s), "
                     f"relative difference {_percent(step_rel)}")
    return lines


def _scenario_table(entry, reference_label):
    lines = [f"  slowdown: expected step over {reference_label}'s on one rank",
             f"  {'N':>9}  {'uncoord ms':>11} {'slowdown':>8}  {'co-sched ms':>11} {'slowdown':>8}  "
             f"{'P(any late)':>11}  {'Monte Carlo uncoord ms':>24}"]
    limited = False
    for row in entry["predictions"]:
        mark = "*" if row["tail_limited"] else " "
        limited |= row["tail_limited"]
        lines.append(f"  {row['ranks']:>9}{mark} {_ms(row['uncoordinated_step_s']):>11} "
                     f"{row['uncoordinated_slowdown']:>8.3f}  {_ms(row['co_scheduled_step_s']):>11} "
                     f"{row['co_scheduled_slowdown']:>8.3f}  {_probability(row['uncoordinated_p_any_delayed']):>11}  "
                     f"{_monte_carlo_cell(row['monte_carlo']):>24}")
    if limited:
        lines.append(f"  * N >= the {entry['independent_steps']} independent steps measured: the expected maximum "
                     "rests on the largest few measured delays; a longer measurement could show a worse tail")
    return lines


def _tail_lines(entry):
    tail = entry.get("tail")
    if tail is None:
        return []
    model = tail["model"]
    if model["fitted"]:
        fit = (f"GPD over the {100 * model['threshold_quantile']:g}th percentile ({_ms(model['threshold_s'])} ms, "
               f"{model['exceedances']} of {model['samples']} delays): shape {model['shape']:+.3f}, scale "
               f"{_ms(model['scale_s'])} ms")
    else:
        fit = f"no tail fit ({model['exceedances']} delays above the threshold, at least 10 needed): empirical"
    boot = tail["bootstrap"]
    lines = [f"  tail model: {fit}", f"  {check_text(tail['held_out_check'])}",
             f"  the data support N <= {tail['supported_ranks']}; 95 % intervals from {boot['resamples']} bootstrap "
             f"resamples (moving blocks of {boot['block_steps']} steps, the tail refitted in each, seed {boot['seed']})",
             f"  slowdown over {tail['slowdown_over']}'s expected step on one rank (tail model)",
             f"  {'N':>9}  {'step ms [95 % interval]':>30}  {'slowdown [95 % interval]':>26}"]
    for p in tail["predictions"]:
        mark = " " if p["supported"] else "*"
        lines.append(f"  {p['ranks']:>9}{mark} {_ms(p['step_s']):>9} [{_ms(p['step_low_s'])}, {_ms(p['step_high_s'])}]"
                     f"  {p['slowdown']:>8.3f} [{p['slowdown_low']:.3f}, {p['slowdown_high']:.3f}]")
    lines.append("  * beyond what the data support: the tail model's extrapolation")
    return lines


def _comparison(result):
    comparison = result["comparison"]
    if comparison is None:
        return []
    first, second = result["scenarios"]
    reference = result["reference"]
    lines = ["", f"{comparison['all_cores']} against {comparison['reserved']} (slowdown: expected step over "
                 f"{reference['scenario']}'s on one rank, {_ms(reference['step_s'])} ms):",
             f"  {'N':>9}  {'uncoordinated':>27}  {'co-scheduled':>27}",
             f"  {'':>9}  {first['label']:>13} {second['label']:>13}  {first['label']:>13} {second['label']:>13}"]
    for a, b in zip(first["predictions"], second["predictions"]):
        lines.append(f"  {a['ranks']:>9}  {a['uncoordinated_slowdown']:>13.3f} {b['uncoordinated_slowdown']:>13.3f}  "
                     f"{a['co_scheduled_slowdown']:>13.3f} {b['co_scheduled_slowdown']:>13.3f}")
    limit = comparison["searched_up_to_ranks"]
    lines.append("  point estimates from the measured (empirical) distributions:")
    for coordination in (UNCOORDINATED, CO_SCHEDULED):
        lines.append(f"  reserving a core wins ({coordination} noise): "
                     f"{_verdict(comparison['reserved_wins_ranges'][coordination], limit)}")
    tail = comparison.get("tail")
    if tail is not None:
        rpn = tail["ranks_per_node"]
        lines += [f"  with the tail model, uncoordinated noise, {rpn['all_cores']} against {rpn['reserved']} ranks per "
                  "node:",
                  f"    equal rank count ({tail['assumptions']['equal_ranks']}): reserving wins "
                  f"{tail['verdict']['equal_ranks']}",
                  f"    equal node count ({tail['assumptions']['equal_nodes']}): reserving wins "
                  f"{tail['verdict']['equal_nodes']}"]
    return lines


def _verdict(ranges, limit):
    if not ranges:
        return f"never, up to {limit} ranks: keep every core computing"
    if ranges == [[1, limit]]:
        return f"at every rank count up to {limit}"
    spans = ", ".join(f"{a}" if a == b else f"{a}..{b}" for a, b in ranges)
    if ranges[-1][1] == limit:
        return f"from {ranges[-1][0]} ranks on (up to {limit}); reserved is faster at N = {spans}"
    return f"not at {limit} ranks; reserved is faster only at N = {spans}"


def format_report(result):
    lines = ["wave3d jitter extrapolation: bulk-synchronous steps, each as long as the slowest rank's "
             "(model and assumptions: python/tools/README.md)"]
    for entry in result["scenarios"]:
        lines.append("")
        lines.append(f"{entry['label']}:")
        if entry["run_summary"] is not None:
            lines.append(_run_line(entry))
        lines.extend(_noise_lines(entry))
        lines.extend(_validation_lines(entry["validation"]))
        lines.extend(_scenario_table(entry, result["reference"]["scenario"]))
        lines.extend(_tail_lines(entry))
    lines.extend(_comparison(result))
    mc = result["monte_carlo"]
    if mc["steps"] > 0:
        lines.append("")
        lines.append(f"Monte Carlo: {mc['steps']} simulated steps per N <= {mc['max_ranks']} (seed {mc['seed']}), "
                     f"mean +- its standard error; 'ok' when within {mc['sigmas']:g} standard errors (from the exact "
                     "variance of the maximum) of the exact order statistics")
    return "\n".join(lines) + "\n"
