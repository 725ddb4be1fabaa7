"""One colour, marker and line style per algorithm, for every figure of the reproduction.

Every figure (figures/plot_all.py, sort_results.py, gaussian_results.py) takes its
colours from here, so an algorithm looks the same wherever it is drawn:

  - ours (the bijective shuffle VarPhilox, onesweep, the warp Gaussian generator) in one
    strong blue, OURS; our other variants (less fused shuffles, the double-buffer sort, the
    4-coefficient Gaussian) in lighter blues of the same family;
  - the CUB configurations in a family of greens and teals, CUB (best) the darkest;
  - the bound a shuffle is measured against (random gather) in black, its index-array
    variant in grey; the other peers each in a hue of their own;
  - this run solid, the paper's published numbers dashed in the colour of the algorithm
    they belong to (line(name) and paper_line(name) give the matplotlib keywords).

Names are the ones the figures show (the shuffle paper's table labels, the GPU display
names of shuffle_results.GPU_DISPLAY) or registry names (sort and Gaussian algorithms);
ALIASES maps registry names to the shown names where both occur. A name this module does
not know gets a colour from a fixed list chosen by a hash of the name, so it too has the
same colour in every figure. Standard library only (matplotlib is imported by apply_rc
only).
"""

import zlib

# The one colour of ours, in every figure.
OURS = "#0057b7"
OURS_LIGHT = "#5b9bd5"   # our second variant (Bijective1, onesweep double buffer, 4 coefficients)
OURS_PALE = "#a9c9ea"    # our third (Bijective0, the warp_normal_generator API)
BOUND = "#222222"        # the random-gather upper bound
CUB_BEST = "#00441b"     # the fastest CUB configuration at each point
PAPER_LS = "--"          # the paper's published numbers
THRESHOLD = "black"      # statistical thresholds and critical values
FAIL = "#d62728"         # edge of a point that fails a statistical test
NOTE = "#555555"         # footers, faint guide lines and their labels

# name: (colour, marker, family). Families: ours, bound, peer, cub, reference.
STYLES = {
    # ---- the shuffle paper (labels of its Tables 1-2; GPU display names)
    "VarPhilox": (OURS, "o", "ours"),
    "VarPhilox Bijective1": (OURS_LIGHT, "^", "ours"),
    "VarPhilox Bijective0": (OURS_PALE, "s", "ours"),
    "LCG": ("#ff7f0e", "v", "ours"),  # the paper's bijective shuffle with an LCG bijection
    "Gather": (BOUND, "D", "bound"),
    "Gather (index array)": ("#8a8a8a", "d", "bound"),
    "DartThrowing": ("#d62728", "X", "peer"),
    "SortShuffle": ("#e377c2", "P", "peer"),
    "std::shuffle": ("#9467bd", "*", "peer"),
    "RS": ("#17becf", "h", "peer"),
    "MergeShuffle": ("#8c564b", "p", "peer"),
    "thrust::shuffle_copy": ("#7b3294", "<", "peer"),   # thrust: dark purple, like thrust::sort
    "randperm+gather": ("#e7969c", ">", "peer"),
    # the walking permutation (cycle walking over VariablePhilox, issue 28): ours, a teal blue
    "Walking": ("#0a8f9e", "H", "ours"),
    # ---- Onesweep (registry names of experiments/common/sort_bench.cu)
    "onesweep": (OURS, "o", "ours"),
    "onesweep_db": (OURS_LIGHT, "s", "ours"),
    "hybrid_msd": ("#08306b", "D", "ours"),      # our hybrid MSD sort (after HRS): darkest blue
    "onepass_sort": ("#e6550d", "*", "ours"),    # onepass::sort (the selector): orange star
    "cub(best)": (CUB_BEST, "o", "cub"),
    "cub_onesweep_n64": ("#238b45", "^", "cub"),
    "cub_onesweep_n32": ("#74c476", "v", "cub"),
    "cub_onesweep_db_n64": ("#1b7f7a", "<", "cub"),
    "cub_onesweep_db_n32": ("#66c2a4", ">", "cub"),
    "cub_onesweep": ("#74c476", "v", "cub"),          # legacy name of cub_onesweep_n32
    "cub_reduce_then_scan": ("#8fae1b", "D", "cub"),  # CUB 1.10's design: the paper's baseline
    "thrust_sort": ("#7b3294", "<", "peer"),
    "vren": ("#a6761d", "P", "peer"),
    # ---- the warp Gaussian generator (registry names of gaussian_throughput)
    "ours_register_3": (OURS, "o", "ours"),
    "ours_register_4": (OURS_LIGHT, "s", "ours"),
    "ours_generator_4": (OURS_PALE, "^", "ours"),
    "ours_memory_3": (OURS, "o", "ours"),
    "ours_memory_4": (OURS_LIGHT, "s", "ours"),
    "curand_normal2_double": ("#b15928", "X", "peer"),
    "curand_host_philox": ("#b15928", "X", "peer"),
    # the two tables of the generator: ours (optimised) and the article's starting point
    "gaussian_optimised": (OURS, "o", "ours"),
    "gaussian_inverse_cdf": ("#e08214", "s", "reference"),
    "N(0,1)": ("black", None, "reference"),
    # ---- the Python frameworks (algorithm names of experiments/python_peers.py; ours there is
    # `onepass`, drawn in OURS): torch in oranges and reds, CuPy in purples, JAX in browns
    "torch_randperm_gather": ("#e6550d", "v", "peer"),
    "torch_argsort_rand_gather": ("#fd8d3c", "^", "peer"),
    "torch_sort": ("#a50f15", "<", "peer"),
    "torch_randn": ("#fb6a4a", ">", "peer"),
    "cupy_permutation": ("#6a51a3", "s", "peer"),
    "cupy_sort": ("#9e9ac8", "D", "peer"),
    "cupy_standard_normal": ("#54278f", "P", "peer"),
    "jax_permutation": ("#8c510a", "X", "peer"),
    "jax_permutation_independent": ("#bf812d", "h", "peer"),
    # ---- the data-loader sampler (algorithm names of experiments/sampler.py): ours in blues,
    # torch's DistributedSampler and randperm in oranges and reds
    "onepass_cpu": (OURS, "o", "ours"),
    "onepass_sampler_iter": (OURS_LIGHT, "s", "ours"),
    "onepass_gpu": ("#08306b", "D", "ours"),
    "torch_distributed_sampler": ("#d94801", "v", "peer"),
    "torch_randperm_cpu": ("#fd8d3c", "^", "peer"),
    "torch_randperm_cuda": ("#a50f15", "<", "peer"),
}

# Registry / experiment names -> the names above.
ALIASES = {
    "variable_philox": "VarPhilox", "variablephilox": "VarPhilox", "Bijective2": "VarPhilox",
    "variable_philox_bijective1": "VarPhilox Bijective1", "Bijective1": "VarPhilox Bijective1",
    "variable_philox_bijective0": "VarPhilox Bijective0", "Bijective0": "VarPhilox Bijective0",
    "lcg": "LCG", "gather": "Gather", "gather_index_array": "Gather (index array)",
    "dart_throwing": "DartThrowing", "sort_shuffle": "SortShuffle", "std_shuffle": "std::shuffle",
    "rao_sandelius": "RS", "merge_shuffle": "MergeShuffle", "thrust_shuffle": "thrust::shuffle_copy",
    "randperm": "randperm+gather", "walking": "Walking",
    "optimised": "gaussian_optimised", "inverse_cdf": "gaussian_inverse_cdf",
}

# Colours for names not listed, chosen by a hash of the name (the same in every figure).
_EXTRA = ["#7f7f7f", "#c51b7d", "#4d9221", "#542788", "#b35806", "#01665e", "#8e0152", "#2d004b"]
_EXTRA_MARKERS = ["x", "+", "1", "2", "3", "4"]


def canonical(name):
    """The STYLES key for a shown or registry name (the name itself when unknown)."""
    if name in STYLES:
        return name
    return ALIASES.get(name, name)


def _entry(name):
    key = canonical(name)
    if key in STYLES:
        return STYLES[key]
    h = zlib.crc32(str(name).encode("utf-8"))
    return _EXTRA[h % len(_EXTRA)], _EXTRA_MARKERS[h % len(_EXTRA_MARKERS)], "peer"


def colour(name):
    """The colour of an algorithm in every figure."""
    return _entry(name)[0]


def marker(name):
    """The marker of an algorithm in every figure (None: a line without markers)."""
    return _entry(name)[1]


def family(name):
    """'ours', 'bound', 'peer', 'cub' or 'reference'."""
    return _entry(name)[2]


def is_ours(name):
    return family(name) == "ours"


def line(name, **over):
    """matplotlib plot() keywords for this run's series of `name`: its colour and marker,
    solid; ours drawn a little heavier and on top. Keywords in `over` win."""
    c, m, fam = _entry(name)
    kw = {"color": c, "marker": m, "ls": "-", "lw": 2.0 if fam == "ours" else 1.5, "ms": 4.5 if fam == "ours" else 4,
          "zorder": 4 if fam == "ours" else 3}
    kw.update(over)
    return kw


def paper_line(name, **over):
    """plot() keywords for the paper's published numbers of `name`: the same colour and
    marker, dashed, hollow markers, lighter."""
    c, m, _ = _entry(name)
    kw = {"color": c, "marker": m, "ls": PAPER_LS, "lw": 1.2, "ms": 3.5, "mfc": "white", "alpha": 0.85,
          "zorder": 2}
    kw.update(over)
    return kw


def apply_rc():
    """The shared matplotlib settings (font sizes, grid, resolution); call before drawing."""
    import matplotlib
    matplotlib.rcParams.update({
        "font.size": 10, "axes.titlesize": 10, "axes.labelsize": 10, "legend.fontsize": 8.5,
        "axes.grid": True, "grid.alpha": 0.3, "grid.linewidth": 0.6, "figure.dpi": 100,
        "savefig.dpi": 150, "pdf.fonttype": 42,
    })
