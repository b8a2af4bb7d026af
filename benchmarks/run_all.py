"""Runs every benchmark and prints the tables (results also in benchmarks/results/)."""

import bench_binary
import bench_copy
import bench_host_overhead
from common import print_table, save

if __name__ == "__main__":
    for name, mod, title in [
        ("host_overhead", bench_host_overhead, "Host-side overhead (ratio = tpu / cpu)"),
        ("copy", bench_copy, "Copy bandwidth (ratio = tpu time / host memcpy time)"),
        ("binary", bench_binary, "Binary elementwise, 16M float32 (ratio = tpu / cpu)"),
    ]:
        rows = mod.run()
        print_table(title, rows)
        save(name, rows)
