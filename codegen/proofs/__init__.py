"""Claims checked against the built code: composite entries proven to reach
only tpu kernels, stub entries proven to reach their kernels."""
