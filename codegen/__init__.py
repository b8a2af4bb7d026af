"""The torch_tpu generator: ops.yaml -> C++ registrations, tests and coverage.

Run `python -m codegen --help`. The stages, one package each, in the order a
run goes through them (a stage imports only from the stages before it):

  facts/    what the installed torch says: native_functions.yaml, the wheel's
            DispatchStubs, CUDA's autocast lists, the OpInfo database, dtypes
  model/    what ops.yaml says: its entries parsed and validated against facts/
  emit/     the C++ glue written from the model, and the build that compiles it
  testgen/  the tests written from the model (OpInfo, ModuleInfo, out=,
            promotion, custom ops), and the runner that records their results
  proofs/   claims checked against the built libraries: composite closures,
            stub kernels reached
  report/   docs/coverage.md from all of the above
  cli.py    the commands
"""
