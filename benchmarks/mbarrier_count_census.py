"""Issue 23 item 16, "an mbarrier_init count that differs from the threads that arrive": how often
could a rule even decide it in real CuTe DSL code? For every `mbarrier_init(bar, count)` call of
the given trees (the DSL's own library under python/CuTeDSL/cutlass is left out), read with `ast`:

- count: an int literal or a name bound once to one (module or function), else symbolic;
- escapes: the barrier (the root name of `bar`, past `+ i`, `[i]`, `.subview(i)`, `.iterator`)
  is passed to any call other than the mbarrier operations (a TMA copy's `tma_bar_ptr=`, a
  `tcgen05`/UMMA commit, a pipeline, a helper) or stored on an object, in the function: then the
  hardware or another function arrives and the arrivals cannot be counted locally;
- local arrivals: the `mbarrier_arrive*` calls on it in the function, each under tests the
  script can count threads for (`tidx == c`, `warp_idx == c`, `lane == c`, `elect_one()`,
  `is_leader`-style names are NOT counted) or none.
Decidable = count known, no escape, at least one local arrival, every arrival's thread count
known (a launch's block size is then still needed for unconditioned arrivals; counted apart).

usage: python benchmarks/mbarrier_count_census.py /work/corpus/{cutlass,quack,flashinfer,flash-attention}
"""
import ast
import pathlib
import sys
from collections import Counter

ARRIVES = {"mbarrier_arrive", "mbarrier_arrive_and_expect_tx", "cp_async_mbarrier_arrive_noinc",
           "mbarrier_arrive_expect_tx", "mbarrier_arrive_cluster", "cp_async_mbarrier_arrive"}
HARMLESS = {"mbarrier_init", "mbarrier_wait", "mbarrier_try_wait", "mbarrier_test_wait", "mbarrier_conditional_try_wait",
            "mbarrier_try_wait_parity", "mbarrier_test_wait_parity", "mbarrier_wait_parity",
            "mbarrier_expect_tx", "mbarrier_init_fence", "fence_mbarrier_init", "range", "range_constexpr", "print", "int"}
THREAD_NAMES = ("tidx", "tid", "thread_idx", "warp_idx", "warp_id", "lane", "lane_idx", "lane_id")


def root(expr):
    while True:
        if isinstance(expr, ast.BinOp):
            expr = expr.left
        elif isinstance(expr, ast.Subscript):
            expr = expr.value
        elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in ("subview", "offset"):
            expr = expr.func.value
        elif isinstance(expr, ast.Attribute) and expr.attr in ("iterator", "data_ptr"):
            expr = expr.value
        else:
            break
    return ast.unparse(expr)


def name_of(call):
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None


def constants(tree):
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Constant) and isinstance(node.value.value, int):
            found.setdefault(node.targets[0].id, []).append(node.value.value)
    return {k: v[0] for k, v in found.items() if len(set(v)) == 1}


def parents(tree):
    up = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            up[child] = node
    return up


def thread_count_known(call, up, function):
    """Every test around `call` in its function selects a countable set of threads."""
    node = call
    tests = 0
    while node in up and node is not function:
        parent = up[node]
        if isinstance(parent, ast.If) and node is not parent.test:
            text = ast.unparse(parent.test)
            if not any(n in text for n in THREAD_NAMES) or not isinstance(parent.test, ast.Compare) \
                    or not all(isinstance(op, ast.Eq) for op in parent.test.ops):
                return None
            tests += 1
        if isinstance(parent, (ast.With,)) and any("elect_one" in ast.unparse(i.context_expr) for i in parent.items):
            tests += 1
        if isinstance(parent, (ast.For, ast.While)):
            pass  # a loop arrives once per iteration on successive barriers, or several times: counted as unknown below
        node = parent
    return tests


def main(paths):
    counts, examples, escaped = Counter(), {}, Counter()
    for base in paths:
        for path in sorted(pathlib.Path(base).rglob("*.py")):
            if "python/CuTeDSL/cutlass/" in str(path):
                continue
            text = path.read_text(errors="replace")
            if "mbarrier_init" not in text:
                continue
            try:
                tree = ast.parse(text)
            except SyntaxError:
                continue
            up, consts = parents(tree), constants(tree)
            for call in ast.walk(tree):
                if not (isinstance(call, ast.Call) and name_of(call) == "mbarrier_init" and len(call.args) >= 2):
                    continue
                function = call
                while function in up and not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    function = up[function]
                counts["init sites"] += 1
                count = call.args[1]
                known = isinstance(count, ast.Constant) or (isinstance(count, ast.Name) and count.id in consts)
                counts["count known (literal or constant)" if known else "count symbolic"] += 1
                bar = root(call.args[0])
                escapes, arrivals = False, []
                for node in ast.walk(function):
                    if isinstance(node, ast.Call) and node is not call:
                        uses = [a for a in [*node.args, *(k.value for k in node.keywords)] if bar in ast.unparse(a)]
                        if not uses:
                            continue
                        called = name_of(node)
                        if called in ARRIVES:
                            arrivals.append(node)
                        elif called not in HARMLESS:
                            if not escapes:
                                escaped[called] += 1
                            escapes = True
                    elif isinstance(node, ast.Assign) and bar in ast.unparse(node.value) and any(
                            isinstance(t, ast.Attribute) for t in node.targets):
                        if not escapes:
                            escaped["<stored on an object>"] += 1
                        escapes = True
                if escapes:
                    counts["barrier escapes (TMA, commit, pipeline, helper)"] += 1
                    continue
                if not arrivals:
                    counts["no arrival in the function"] += 1
                    continue
                known_threads = [thread_count_known(a, up, function) for a in arrivals]
                in_loop = any(isinstance(up.get(a), ast.For) or any(isinstance(p, (ast.For, ast.While))
                              for p in _chain(a, up, function)) for a in arrivals)
                if any(k is None for k in known_threads):
                    counts["arrivals under tests it cannot count"] += 1
                elif in_loop:
                    counts["arrivals in loops"] += 1
                elif not known:
                    counts["arrivals countable, count symbolic"] += 1
                else:
                    counts["decidable"] += 1
                    examples.setdefault("decidable", []).append(f"{path}:{call.lineno}")
    for key, value in counts.items():
        print(f"{key}: {value}")
    print("escapes by first call:", ", ".join(f"{k} {v}" for k, v in escaped.most_common(12)))
    for line in examples.get("decidable", []):
        print("  decidable:", line)


def _chain(node, up, function):
    while node in up and node is not function:
        node = up[node]
        yield node


if __name__ == "__main__":
    main(sys.argv[1:])
