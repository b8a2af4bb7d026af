"""Exit after device backwards (torch_tpu/tpu/autograd_exit.py). In torch
2.13 a device's autograd thread may drop the last backward's Python state
while the interpreter finalizes and abort the process ("terminate called
without an active exception"): 5-6 of 10 runs of a benchmark script whose
last act was a tpu backward, 0 of 10 with the drain at exit. The race is
timing-dependent, so these tests check the drain itself: it runs, it ends,
and it starts nothing in a process that never ran a backward."""

import subprocess
import sys
import textwrap


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=120)


def test_exit_after_device_backwards_drains_the_autograd_thread():
    r = _run("""
        import torch, torch_tpu
        from torch_tpu.tpu import autograd_exit
        x = torch.randn(8, 8, device="tpu", requires_grad=True)
        for _ in range(20):
            (x @ x).tanh().sum().backward()
        assert autograd_exit._autograd_threads_running()
        autograd_exit.drain()  # what atexit runs; then again at exit
        print("grad", float(x.grad.sum().cpu()))
        with torch.no_grad():  # a program may exit with gradients off: the drain still runs a backward
            torch_tpu._C._drain_autograd_threads([0])
        """)
    assert r.returncode == 0, r.stderr
    assert "terminate called" not in r.stderr
    assert r.stdout.startswith("grad ")


def test_exit_without_backwards_starts_no_autograd_thread():
    r = _run("""
        import torch, torch_tpu
        from torch_tpu.tpu import autograd_exit
        y = (torch.ones(4, device="tpu") * 2).cpu()
        autograd_exit.drain()
        print(autograd_exit._autograd_threads_running())
        """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False"
