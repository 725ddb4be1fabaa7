// placeholder, replaced by the permutation statistics
