"""What several test files share."""

import numpy as np


def labelled(n=600, seed=0):
    """Three discrete columns, the first (with 10 % of its labels flipped) and the last
    informative about a binary label."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = np.column_stack([y ^ (rng.random(n) < 0.1), rng.integers(0, 3, n), 1 - y])
    return X, y
