"""Where things are: the repository root every stage reads ops.yaml from and
writes csrc/generated/, tests/generated/ and docs/ into."""

import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
