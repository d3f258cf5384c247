/* The docstrings of the public functions (help(warpkit.sum), ...): the
 * signature line, then what the function does. The rules behind them are
 * in include/warpkit.h and python/README.md. */
#ifndef WARPKIT_PY_DOCS_H
#define WARPKIT_PY_DOCS_H

#define SIGNATURE(text) text "\n--\n\n"

static const char doc_reduce[] = SIGNATURE("reduce($module, x, op, *, axis=None, out=None, stream=None)")
"Reduce all elements of x with op (\"sum\", \"min\", \"max\", \"and\", \"or\", \"xor\";\n"
"the bitwise ones for integer and bool dtypes). Returns a 0-d device array of\n"
"x's dtype, or for \"sum\" of the dtype `sum` gives (or writes `out`, one\n"
"element). Asynchronous.\n\n"
"axis=-1 (or x.ndim - 1): reduce each row along the last axis instead, giving an\n"
"array of shape x.shape[:-1] (`out`: a contiguous array of that many elements);\n"
"an empty row gives the identity. x may be C-contiguous or have its rows apart,\n"
"as a column slice x[:, :k] (see README.md).\n\n"
"Semantics (include/warpkit.h): integer sums wrap; f16/bf16 accumulate in float;\n"
"n = 0 gives the identity; min/max return NaN if any element is NaN; the same\n"
"bits on every run.";

static const char doc_sum[] = SIGNATURE(
    "sum($module, x, *, axis=None, dtype=None, out=None, stream=None, reproducible=False)")
"Sum of all elements, a 0-d device array. Asynchronous.\n\n"
"Its dtype: `dtype` if given, else out's, else the rule of x's library: for\n"
"PyTorch tensors torch.sum's (bool and every integer dtype into int64), for\n"
"CuPy and other arrays numpy.sum's (bool and signed integers into int64,\n"
"unsigned into uint64; JAX without 64-bit types: int32 / uint32). Floats keep\n"
"their dtype. The input is read once: narrow inputs are summed in the wider\n"
"dtype (wk_reduce_to); a pair the C library does not widen (int64 into float32,\n"
"say) converts x with its own library first, as torch.sum(dtype=) does.\n\n"
"axis=-1: the sum of each row along the last axis, shape x.shape[:-1] (see reduce).\n\n"
"reproducible=True (float dtypes): the same bits whatever the GPU, the order of\n"
"the elements or the offset of the view (wk_reduce_repro): within half an ulp of\n"
"the exact sum plus n * 2^-80 * max|x|. With axis=-1 (wk_segmented_reduce_repro),\n"
"each row gets the bits the whole array call gives for that row alone (+0.0 for\n"
"an empty row), in any layout. Integer sums are exact either way.";

static const char doc_min[] = SIGNATURE("min($module, x, *, axis=None, out=None, stream=None)")
"Smallest element (NaN if any is NaN), a 0-d device array; with axis=-1, of each\n"
"row (see reduce). Asynchronous.";

static const char doc_max[] = SIGNATURE("max($module, x, *, axis=None, out=None, stream=None)")
"Largest element (NaN if any is NaN), a 0-d device array; with axis=-1, of each\n"
"row (see reduce). Asynchronous.";

static const char doc_reduce_and[] = SIGNATURE("reduce_and($module, x, *, axis=None, out=None, stream=None)")
"Bitwise AND of all elements (integer dtypes), 0-d. All ones for n = 0.";

static const char doc_reduce_or[] = SIGNATURE("reduce_or($module, x, *, axis=None, out=None, stream=None)")
"Bitwise OR of all elements (integer dtypes), 0-d. Asynchronous.";

static const char doc_reduce_xor[] = SIGNATURE("reduce_xor($module, x, *, axis=None, out=None, stream=None)")
"Bitwise XOR of all elements (integer dtypes), 0-d. Asynchronous.";

static const char doc_argmin[] = SIGNATURE("argmin($module, x, *, axis=None, return_value=False, stream=None)")
"Index (int64, 0-d device array) of the first smallest element, as numpy.argmin\n"
"of the flattened array: the first NaN if there is one; -1 for n = 0. With\n"
"return_value=True, returns (value, index), both 0-d views of one 16-byte device\n"
"buffer. Asynchronous.\n\n"
"axis=-1: the index within each row along the last axis, shape x.shape[:-1], as\n"
"numpy.argmin(x, axis=-1); (values, indices) with return_value=True, both views\n"
"of one (..., 16-byte) buffer (strided). Rows of length 0 raise ValueError, as in\n"
"NumPy.";

static const char doc_argmax[] = SIGNATURE("argmax($module, x, *, axis=None, return_value=False, stream=None)")
"Index (int64, 0-d device array) of the first largest element; see argmin.";

static const char doc_scan[] = SIGNATURE(
    "scan($module, x, op='sum', *, axis=None, exclusive=False, initial=None, out=None, stream=None, "
    "prefix=None)")
"Prefix scan of the flattened x with op (\"sum\", \"min\", \"max\", \"and\", \"or\",\n"
"\"xor\"), a 1-D array of n elements of x's dtype, or for \"sum\" of the dtype\n"
"`sum` gives (or `out`, any contiguous array of n elements; out may be x itself:\n"
"in place).\n\n"
"exclusive=True: out[0] = initial, out[i] = initial op x[0] op ... op x[i-1];\n"
"initial defaults to the op's identity (0, +inf / the dtype's maximum for min,\n"
"...) and is rounded to the dtype. Asynchronous.\n\n"
"axis=-1 (or x.ndim - 1): scan each row along the last axis on its own (an\n"
"exclusive scan starts every row at `initial`); the result has x's shape. x\n"
"C-contiguous, or with its rows apart (a column slice x[:, :k]) when `out` is laid\n"
"out as x (out=x: in place).\n\n"
"prefix: a one-element device array of the result's dtype, what precedes x[0]\n"
"when x is one part of a longer input (the last inclusive output of the part\n"
"before, or a total): out[i] = prefix op x[0] op ... op x[i], and exclusive:\n"
"initial op prefix op x[0] ... op x[i-1]. Read on the device in stream order\n"
"(no sync); flat scans only.";

static const char doc_cumsum[] = SIGNATURE(
    "cumsum($module, x, *, axis=None, dtype=None, exclusive=False, initial=None, out=None, stream=None, "
    "prefix=None)")
"Cumulative sum (inclusive, or exclusive starting at `initial`, default 0) of the\n"
"flattened x, or of each row with axis=-1 (see scan). The result's dtype follows\n"
"sum's rules (a bool mask's cumsum is int64: the positions of its Trues);\n"
"prefix continues a part of a longer input (see scan).";

static const char doc_count_nonzero[] = SIGNATURE("count_nonzero($module, x, *, axis=None, stream=None)")
"The number of nonzero elements (True for bool; NaN counts), a 0-d int64 device\n"
"array, as torch.count_nonzero; with axis=-1, of each row. A bool x is read once\n"
"(its sum into int64); other dtypes are compared with 0 by x's library first\n"
"(for JAX arrays the call then waits for its stream: README.md).\n"
"Asynchronous.";

static const char doc_cummin[] = SIGNATURE(
    "cummin($module, x, *, axis=None, exclusive=False, initial=None, out=None, stream=None, prefix=None)")
"Cumulative minimum (NaN from the first NaN on); axis and prefix as in scan.";

static const char doc_cummax[] = SIGNATURE(
    "cummax($module, x, *, axis=None, exclusive=False, initial=None, out=None, stream=None, prefix=None)")
"Cumulative maximum (NaN from the first NaN on); axis and prefix as in scan.";

static const char doc_select[] = SIGNATURE("select($module, x, op, value=None, *, out=None, count=None, stream=None)")
"Stream compaction: the elements e of the flattened x for which `e <op> value`\n"
"holds, in order, to out[0:count].\n\n"
"op: \"<\", \"<=\", \">\", \">=\", \"==\", \"!=\" (value needed; rounded to x's dtype),\n"
"\"isnan\", \"notnan\" (float dtypes, no value). NaN compares as in C: false except\n"
"for \"!=\".\n\n"
"Returns (out, count): out has room for all n elements (entries past count are\n"
"left as they were), count is a 0-d int64 device array. Nothing is synchronized:\n"
"use trim(out, count) for the kept prefix. `out` (n elements of x's dtype) and\n"
"`count` (one int64/uint64) may be given. Asynchronous.";

static const char doc_select_range[] = SIGNATURE(
    "select_range($module, x, lo, hi, *, out=None, count=None, stream=None)")
"The elements with lo <= e < hi (half-open), as select.";

static const char doc_partition[] = SIGNATURE(
    "partition($module, x, op, value=None, *, out=None, count=None, stream=None)")
"Stable partition: the elements `select` keeps to out[0:count] in order, the\n"
"others to out[count:n] in reverse order (as CUB's DevicePartition::If). Returns\n"
"(out, count). Asynchronous.";

static const char doc_nonzero[] = SIGNATURE(
    "nonzero($module, x, op='!=', value=0, *, out=None, count=None, stream=None, index_base=None)")
"Indices (int64) of the elements of the flattened x for which `e <op> value`\n"
"holds (default: e != 0, as numpy.nonzero), to out[0:count]. Returns (indices,\n"
"count). Asynchronous. index_base: a one-element int64 device array added to\n"
"every index (x's offset in a longer input), read on the device.";

static const char doc_unique_consecutive[] = SIGNATURE(
    "unique_consecutive($module, x, *, out=None, count=None, stream=None, previous=None)")
"The first element of every run of equal consecutive elements (== as in C: -0.0\n"
"equals 0.0, every NaN is kept), to out[0:count]. Returns (out, count).\n"
"Asynchronous. previous: a one-element device array of x's dtype, the element\n"
"before x[0] in a longer input (x[0] is kept only if it differs), read on the\n"
"device.";

static const char doc_compress[] = SIGNATURE("compress($module, mask, x, *, out=None, count=None, stream=None)")
"The elements of the flattened x whose mask byte is nonzero, in order, to\n"
"out[0:count] (numpy.compress(mask, x) for flat arrays). mask: bool or uint8, as\n"
"many elements as x. Returns (out, count). Asynchronous.";

static const char doc_trim[] = SIGNATURE("trim($module, out, count, *, stream=None)")
"The kept prefix out[0:count] of a select / compress / partition /\n"
"unique_consecutive / nonzero result, as a view.\n\n"
"SYNCHRONIZES: it reads count on the host, waiting for the work on the array\n"
"library's current stream (as count.item() does). If the select ran on another\n"
"stream (stream=), pass that stream here: it is synchronized first.";

#endif
