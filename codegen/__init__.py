"""The torch_tpu generator: ops.yaml -> C++ registrations, built into the extension.

Run `python -m codegen --help`."""
