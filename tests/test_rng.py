"""The tpu generators: seeding and state round trips."""

import torch


def test_seeds():
    torch.tpu.manual_seed(123)
    assert torch.tpu.initial_seed() == 123
    torch.tpu.manual_seed_all(7)
    assert [g.initial_seed() for g in torch.tpu.default_generators] == [7, 7]
    torch.manual_seed(99)              # torch's global seed reaches tpu too
    assert torch.tpu.default_generators[1].initial_seed() == 99
    torch.tpu.seed()
    assert torch.tpu.initial_seed() != 99
    torch.tpu.seed_all()
    assert len({g.initial_seed() for g in torch.tpu.default_generators}) == 1


def test_state_round_trip():
    torch.tpu.manual_seed(5)
    state = torch.tpu.get_rng_state()
    assert state.dtype == torch.uint8 and state.device.type == "cpu" and state.numel() == 16
    gen = torch.tpu.default_generators[0]
    gen.set_offset(64)
    assert gen.get_offset() == 64
    torch.tpu.set_rng_state(state)
    assert gen.get_offset() == 0 and gen.initial_seed() == 5
    states = torch.tpu.get_rng_state_all()
    torch.tpu.manual_seed_all(1)
    torch.tpu.set_rng_state_all(states)
    assert torch.tpu.get_rng_state_all()[1].tolist() == states[1].tolist()


def test_generator_objects():
    g = torch.Generator(device="tpu")
    assert g.device == torch.device("tpu:0")
    g.manual_seed(42)
    clone = g.clone_state()
    assert clone.initial_seed() == 42
    g1 = torch.Generator(device="tpu:1")
    assert g1.device.index == 1


def test_fork_rng_restores_tpu_state():
    torch.tpu.manual_seed(11)
    gen = torch.tpu.default_generators[0]
    with torch.random.fork_rng(devices=[0, 1], device_type="tpu"):
        torch.tpu.manual_seed(12)
        gen.set_offset(8)
    assert gen.initial_seed() == 11 and gen.get_offset() == 0
