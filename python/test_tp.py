"""The `tp` Python module (python/TPModule.cpp, over tp's C API): lowers
examples/mlp.mlir for 1, 2 and 3 ranks with an inline plan, reads the
communication report, runs each with the same seed and the same caller
input and compares the outputs; then the error paths, each of which must
raise RuntimeError with a message. Usage: test_tp.py EXAMPLES_DIR."""

import json
import sys

import tp


def plan(ranks):
    return json.dumps({
        "mesh": {"shape": [ranks], "axis_names": ["tp"]},
        "plan": {"net1": {"style": "ColwiseParallel"},
                 "net2": {"style": "RowwiseParallel",
                          "output_layouts": "Replicate()"}}})


def lower(context, text, ranks):
    module = tp.Module(context, text)
    module.set_plan(plan(ranks), "inline")
    module.run_pipeline("builtin.module(tp-pipeline)")
    return module


def expect_error(fn, part):
    try:
        fn()
    except RuntimeError as e:
        assert part in str(e), f"{part!r} not in {str(e)!r}"
        print("error:", str(e).splitlines()[0])
        return
    raise AssertionError(f"no error containing {part!r}")


def main():
    text = open(sys.argv[1] + "/mlp.mlir").read()
    print("tp", tp.version())
    context = tp.Context()
    x = [((i % 7) - 3) * 0.25 for i in range(32)]
    outputs = []
    for ranks in (1, 2, 3):
        module = lower(context, text, ranks)
        report = json.loads(module.comm_report())
        if ranks > 1:
            assert report["collectives"]["all_reduce"] == 1, report
            assert report["modules"]["net2"]["all_reduce"] == 1, report
        program = module.compile()
        assert program.num_ranks == ranks
        assert program.inputs == ["arg0"], program.inputs
        result = program.run(seed=7, inputs={"arg0": ((4, 8), x)})
        shape, values = result.output(0)
        assert shape == (4, 8), shape
        outputs.append(values)
        if ranks > 1:
            assert result.collectives("all_reduce") == 1
    for ranks, values in zip((2, 3), outputs[1:]):
        worst = max(abs(a - b) for a, b in zip(outputs[0], values))
        assert worst <= 1e-5, (ranks, worst)
        print(f"{ranks} ranks match 1 rank (max difference {worst:.1e})")

    module = tp.Module(context, text)
    expect_error(lambda: module.run_pipeline("builtin.module(tp-pipelin)"),
                 "'tp-pipelin' does not refer to a registered pass")
    expect_error(lambda: module.set_plan('{"mesh": {"shape": [2]}, "plan": '
                                         '{"net1": {"style": "Colwise"}}}'),
                 "unknown style 'Colwise'")
    expect_error(lambda: tp.Module(context, "func.func @f("), "cannot parse")
    program = lower(context, text, 2).compile()
    expect_error(lambda: program.run(weights_file="/no/weights.safetensors"),
                 "/no/weights.safetensors")
    expect_error(lambda: program.run(num_ranks=3),
                 "numRanks 3 does not match the program's mesh of 2 ranks")
    print("PASSED")


if __name__ == "__main__":
    main()
