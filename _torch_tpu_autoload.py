"""Entry point of the `torch.backends` group: `import torch` calls load().

It lives outside the torch_tpu package so that an unbuilt checkout warns
instead of breaking every `import torch` on the machine. Any other failure
(e.g. a torch version mismatch) still raises."""

import warnings


def load() -> None:
    try:
        import torch_tpu  # noqa: F401
    except ImportError as e:
        if type(e).__name__ != "ExtensionNotBuilt":
            raise
        warnings.warn(f"torch_tpu is installed but not usable: {e}", RuntimeWarning,
                      stacklevel=2)
