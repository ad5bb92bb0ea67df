"""KL147's scope over real code: Triton launches per repository, launches under a device guard in
their own function, files with at least two launches that guard one of them (where KL147 reports),
and the findings. Runs the rule once per repository with its ``finish`` wrapped to count.

usage: python benchmarks/kl147_census.py /work/corpus/*/
"""
import sys
from collections import Counter

from kernelint.cli import main
from kernelint.model.api_versions import vendor_fork
from kernelint.model.project import device_guards
from kernelint.rules import find_rule

RULE = find_rule("KL147")
_finish = RULE.finish
counts: Counter = Counter()


def counting_finish(self, ctx):
    launches = ctx.launches_of("triton", imported=True)
    counts["launches"] += len(launches)
    counts["files_with_launches"] += bool(launches)
    if vendor_fork(ctx):
        counts["launches_in_vendor_files"] += len(launches)
        return
    counts["launches_guarded_in_their_function"] += sum(
        device_guards.guard_at(ctx.project, ctx, launch.node) is not None for launch in launches)
    if len(launches) >= 2 and device_guards.guards_launches(ctx.project, ctx, launches):
        counts["files_with_a_guarded_launch"] += 1
        counts["launches_in_those_files"] += len(launches)
    found = list(_finish(self, ctx))
    counts["reported"] += len(found)
    yield from found


RULE.finish = counting_finish
for repository in sys.argv[1:]:
    before = Counter(counts)
    main(["check", repository, "--select", "KL147", "--no-cache", "-j1"])
    print(repository, dict(counts - before), flush=True)
print("TOTAL", dict(counts))
