"""A compiled program with resident weights (the seed's pattern, on PyTorch):
compile a model once, keep its weights on tpu, and run three batches
through a registered handle. Saved and loaded back, as a server would.

    python examples/program.py [--dir DIR]
"""

from __future__ import annotations

import argparse
import sys
import tempfile

import torch

import torch_tpu

ROWS, COLS = 128, 128


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.up = torch.nn.Linear(COLS, 4 * COLS)
        self.down = torch.nn.Linear(4 * COLS, COLS)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(x)))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default=None, help="where to save the program (default: a temporary dir)")
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    model = Mlp().eval()
    example = torch.randn(ROWS, COLS)

    compiled = torch_tpu.program.compile(model, (example,))   # weights now live on tpu
    out_dir = args.dir or tempfile.mkdtemp(prefix="tpu_program_")
    compiled.save(out_dir)
    program = torch_tpu.program.CompiledProgram.load(out_dir)  # checks the platform
    print(f"program in {out_dir}: params {program.param_names}, inputs {program.input_specs}")

    torch_tpu.reset_stats()
    with program.register() as handle:                          # captured once
        for batch in range(3):                                  # three "batches"
            a = torch.randn(ROWS, COLS)
            out = handle(a)                                     # CPU in, CPU out
            torch.testing.assert_close(out, model(a), rtol=1e-4, atol=1e-4)
        resident = torch.randn(ROWS, COLS).to("tpu")            # stays on the device
        out = handle(resident)                                  # no H2D, output stays on tpu
        torch.testing.assert_close(out.cpu(), model(resident.cpu()), rtol=1e-4, atol=1e-4)
        timing = torch_tpu.benchmark(handle, resident)
    counts = torch_tpu.stats()["program"]
    print(f"copies: {counts['h2d_inputs']} inputs in, {counts['d2h_outputs']} outputs out, "
          f"{counts['resident_inputs']} resident inputs")
    print(f"registered call: host {timing['host_wall_us']:.1f} us, device {timing['device_wall_us']:.1f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
