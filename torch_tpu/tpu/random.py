"""Random number generation state of the tpu generators (one per device)."""

from __future__ import annotations

from typing import List

import torch

from .. import _C
from .device import _DeviceLike, _device_index, device_count

default_generators = tuple(_C._get_default_generator(i) for i in range(device_count()))


def _generator(device: _DeviceLike = None) -> torch.Generator:
    return default_generators[_device_index(device)]


def manual_seed(seed: int) -> None:
    """Seeds the current device's generator."""
    _generator().manual_seed(int(seed))


def manual_seed_all(seed: int) -> None:
    for gen in default_generators:
        gen.manual_seed(int(seed))


def seed() -> None:
    """Seeds the current device's generator with a non-deterministic random number."""
    _generator().seed()


def seed_all() -> None:
    random_seed = _generator().seed()
    for gen in default_generators:
        gen.manual_seed(random_seed)


def initial_seed() -> int:
    return _generator().initial_seed()


def get_rng_state(device: _DeviceLike = "tpu") -> torch.Tensor:
    """The generator state as a ByteTensor (seed and offset)."""
    return _generator(device).get_state()


def set_rng_state(new_state: torch.Tensor, device: _DeviceLike = "tpu") -> None:
    _generator(device).set_state(new_state.clone(memory_format=torch.contiguous_format))


def get_rng_state_all() -> List[torch.Tensor]:
    return [gen.get_state() for gen in default_generators]


def set_rng_state_all(new_states: List[torch.Tensor]) -> None:
    for i, state in enumerate(new_states):
        set_rng_state(state, i)
