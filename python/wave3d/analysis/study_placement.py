"""The placement audit of a study's runs.

wave3d run audits where every thread of every rank of a node ran (run.json "placement_audit": a verdict,
"ok" or "wrong", and the problems found, each with its kind, cause, host, ranks and a one-sentence
message). A run.json written before the audit has none: such a run is "not audited", which the report
never reads as ok or as wrong.

A wrong placement is a measured fact, not a failed run: the run keeps counting in the medians, and every
ratio or finding built on its configuration carries the ids of the configurations involved whose
placement was wrong ("placement_wrong"), so the report can say so next to the number.
"""

from dataclasses import dataclass

from .errors import InputError

VERDICTS = ("ok", "wrong")
NOT_AUDITED = "not audited"


@dataclass(frozen=True)
class PlacementProblem:
    kind: str  # shared-cpus, floating, off-plan, oversubscribed, no-work
    cause: str  # launcher, cgroup, openmp, plan, blocking, unbound
    host: str
    ranks: tuple
    message: str

    def as_dict(self):
        return {"kind": self.kind, "cause": self.cause, "host": self.host, "ranks": list(self.ranks),
                "message": self.message}


@dataclass(frozen=True)
class PlacementAudit:
    verdict: str  # ok or wrong
    problems: tuple
    strict: bool

    @property
    def wrong(self):
        return self.verdict == "wrong"

    @property
    def kinds(self):
        """The kinds of problem, each once, in the order the audit found them."""
        return list(dict.fromkeys(p.kind for p in self.problems))


def _text(value, missing):
    return value if isinstance(value, str) and value else missing


def _problem(path, index, doc):
    if not isinstance(doc, dict):
        raise InputError(path, f"placement_audit.problems[{index}] is not an object")
    ranks = doc.get("ranks")
    ranks = tuple(r for r in ranks if isinstance(r, int) and not isinstance(r, bool)) if isinstance(ranks, list) else ()
    return PlacementProblem(kind=_text(doc.get("kind"), "unknown kind"), cause=_text(doc.get("cause"), "unknown cause"),
                            host=_text(doc.get("host"), "unknown host"), ranks=ranks,
                            message=_text(doc.get("message"), "no message recorded"))


def read_audit(doc, path):
    """run.json's placement_audit -> PlacementAudit; None when the run was not audited. An audit that is there
    but cannot be read (a verdict other than ok or wrong, problems that are not a list of objects) is an
    InputError naming the file: guessing a verdict would defeat the point of having one."""
    audit = doc.get("placement_audit")
    if audit is None:
        return None
    if not isinstance(audit, dict):
        raise InputError(path, "placement_audit is not an object")
    verdict = audit.get("verdict")
    if verdict not in VERDICTS:
        raise InputError(path, f"placement_audit.verdict = {verdict!r} is not 'ok' or 'wrong'")
    problems = audit.get("problems", [])
    if not isinstance(problems, list):
        raise InputError(path, "placement_audit.problems is not a list")
    return PlacementAudit(verdict=verdict, problems=tuple(_problem(path, i, p) for i, p in enumerate(problems)),
                          strict=audit.get("strict") is True)


def wrong_among(*configurations):
    """The ids of those configurations whose placement was wrong in a run that counts, each once."""
    return list(dict.fromkeys(c.id for c in configurations if c is not None and c.placement_wrong))


def merge_wrong(*id_lists):
    """Several placement_wrong lists as one, each id once."""
    return list(dict.fromkeys(i for ids in id_lists for i in ids))


def placement_text(counted, wrong, unaudited, kinds):
    """'ok', 'wrong in 2/3: shared-cpus', 'not audited', 'ok in 2/3; 1 not audited', ...; over the runs that
    count, which are the runs behind the configuration's numbers."""
    if counted == 0:
        return "no result"
    if unaudited == counted:
        return NOT_AUDITED
    rest = f"; {unaudited} not audited" if unaudited else ""
    if wrong:
        return f"wrong in {wrong}/{counted}" + (f": {', '.join(kinds)}" if kinds else "") + rest
    return "ok" if not unaudited else f"ok in {counted - unaudited}/{counted}{rest}"


def configuration_placement(configuration):
    """A configuration's placement over its runs that count, for its table row (report.json 'placement')."""
    audits = [r.placement for r in configuration.good_runs]
    wrong = [a for a in audits if a is not None and a.wrong]
    unaudited = sum(a is None for a in audits)
    kinds = list(dict.fromkeys(k for a in wrong for k in a.kinds))
    return {"text": placement_text(len(audits), len(wrong), unaudited, kinds), "wrong": bool(wrong),
            "counted": len(audits), "ok": len(audits) - len(wrong) - unaudited, "wrong_runs": len(wrong),
            "not_audited": unaudited, "kinds": kinds}


def run_counts(study):
    """How the runs that count were placed: ok, wrong, not audited."""
    audits = [r.placement for r in study.runs if r.counts]
    return {"ok": sum(a is not None and not a.wrong for a in audits),
            "wrong": sum(a is not None and a.wrong for a in audits),
            "not_audited": sum(a is None for a in audits)}


def wrong_runs(study):
    """Every run whose run.json says its placement was wrong, with the audit's problems; also the ones left out
    for another reason (a failed verification), marked as not counting."""
    return [{"configuration": r.configuration, "repetition": r.repetition, "dir": r.dir, "counts": r.counts,
             "strict": r.placement.strict, "kinds": r.placement.kinds,
             "problems": [p.as_dict() for p in r.placement.problems]}
            for r in study.runs if r.placement is not None and r.placement.wrong]
