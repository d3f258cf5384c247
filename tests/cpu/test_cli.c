/* CPU test of the warpkit command's parsing. */
#include "cli.h"
#include "test_util.h"

static void size_is(wk_tally *t, const char *text, size_t want)
{
    size_t got = 0;
    char label[128];
    snprintf(label, sizeof label, "size '%s' = %zu", text, want);
    wk_expect(t, wk_parse_size(text, &got) == 0 && got == want, label);
}

static void size_refused(wk_tally *t, const char *text)
{
    size_t got = 12345;
    char label[128];
    snprintf(label, sizeof label, "size '%s' is refused", text);
    wk_expect(t, wk_parse_size(text, &got) == -1 && got == 12345, label);
}

static int parse(wk_cli_options *o, int argc, const char *const *argv)
{
    char err[128];
    return wk_parse_cli(argc, (char **)argv, o, err, sizeof err);
}

/* Command lines the parser refuses, each with what is wrong with it. */
typedef struct refusal {
    const char *what;
    const char *argv[8];
} refusal;

static const refusal refusals[] = {
    {"--json without a file", {"warpkit", "bench", "--json"}},
    {"unknown option", {"warpkit", "bench", "--frobnicate"}},
    {"min above max", {"warpkit", "bench", "--min-n", "2^20", "--max-n", "2^10"}},
    {"zero repeats", {"warpkit", "bench", "--repeats", "0"}},
    {"bad size", {"warpkit", "bench", "--min-n", "lots"}},
    {"bench --n with --max-n", {"warpkit", "bench", "--n", "2^28", "--max-n", "2^30"}},
    {"threads must be a power of two", {"warpkit", "ladder", "--threads", "96"}},
    {"threads at most 1024", {"warpkit", "ladder", "--threads", "2048"}},
    {"unknown memory kind", {"warpkit", "ladder", "--memory", "disk"}},
    {"n of 0 is refused", {"warpkit", "ladder", "--n", "0"}},
    {"unknown --op is refused", {"warpkit", "bench", "--op", "sort"}},
    {"--op without a value", {"warpkit", "bench", "--op"}},
    {"--op takes a primitive, not a reduce op", {"warpkit", "bench", "--op", "sum"}},
    {"an unknown regime is refused", {"warpkit", "bench", "--regime", "hot"}},
    {"--regime without a value", {"warpkit", "bench", "--regime"}},
    {"help of an unknown command is refused", {"warpkit", "help", "frobnicate"}},
    {"help takes one command", {"warpkit", "help", "bench", "ladder"}},
};

static void check_refusals(wk_tally *t)
{
    for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; ++i) {
        const refusal *r = &refusals[i];
        int argc = 0;
        while (argc < 8 && r->argv[argc])
            argc++;
        wk_cli_options o;
        wk_expect(t, parse(&o, argc, r->argv) == -1, r->what);
    }
}

int main(void)
{
    wk_tally t = {0, 0};
    size_is(&t, "16777216", 16777216);
    size_is(&t, "2^24", 16777216);
    size_is(&t, "16M", 16777216);
    size_is(&t, "16m", 16777216);
    size_is(&t, "4k", 4096);
    size_is(&t, "1G", (size_t)1 << 30);
    size_is(&t, "0", 0);
    size_is(&t, "1^100", 1);
    size_is(&t, "2^0", 1);
    size_is(&t, "3^3", 27);
    size_is(&t, "2^63", (size_t)1 << 63);
    size_refused(&t, "2^64");
    size_refused(&t, "");
    size_refused(&t, "abc");
    size_refused(&t, "-1");
    size_refused(&t, "16Q");
    size_refused(&t, "16MB");
    size_refused(&t, "2^");
    size_refused(&t, "^4");
    size_refused(&t, "99999999999999999999999");
    size_refused(&t, "17179869184G");

    for (int d = 0; d < WK_DTYPE_COUNT; ++d) {
        wk_dtype got;
        wk_expect(&t, wk_parse_dtype(wk_dtype_name((wk_dtype)d), &got) == 0 && got == (wk_dtype)d, "dtype round trip");
    }
    for (int o = 0; o < WK_OP_COUNT; ++o) {
        wk_op got;
        wk_expect(&t, wk_parse_op(wk_op_name((wk_op)o), &got) == 0 && got == (wk_op)o, "op round trip");
    }
    wk_dtype dt;
    wk_expect(&t, wk_parse_dtype("f128", &dt) == -1 && wk_parse_dtype(NULL, &dt) == -1, "unknown dtype");

    wk_cli_options o;
    const char *a1[] = {"warpkit", "bench", "--json", "out.json", "--min-n", "2^12", "--max-n", "16M", "--repeats", "7"};
    wk_expect(&t, parse(&o, 10, a1) == 0, "bench options parse");
    wk_expect(&t, strcmp(o.command, "bench") == 0 && strcmp(o.json_path, "out.json") == 0, "command and json");
    wk_expect(&t, o.min_n == 4096 && o.max_n == 16777216 && o.repeats == 7 && o.device == -1, "sizes and repeats");
    const char *a2[] = {"warpkit"};
    wk_expect(&t, parse(&o, 1, a2) == 0 && strcmp(o.command, "help") == 0, "no command means help");
    const char *a3[] = {"warpkit", "verify", "--quick", "--device", "1"};
    wk_expect(&t, parse(&o, 5, a3) == 0 && o.quick && o.device == 1, "verify --quick --device 1");
    const char *a9[] = {"warpkit", "bench", "--op", "select", "--n", "2^28"};
    wk_expect(&t, parse(&o, 6, a9) == 0 && o.min_n == ((size_t)1 << 28) && o.max_n == ((size_t)1 << 28),
              "bench --n: that size alone");
    const char *a11[] = {"warpkit", "ladder", "--n", "2^26"};
    wk_expect(&t, parse(&o, 4, a11) == 0 && o.n == ((size_t)1 << 26) && o.min_n == 0 && o.max_n == 0,
              "ladder --n leaves the bench's range alone");

    const char *l1[] = {"warpkit", "ladder"};
    wk_expect(&t, parse(&o, 2, l1) == 0 && o.n == ((size_t)1 << 24) && o.dtype == WK_F64 && o.threads == 512 &&
                      o.memory == WK_MEMORY_DEVICE && !o.only && !o.ncu,
              "ladder defaults: 2^24 f64, 512 threads, device memory");
    const char *l2[] = {"warpkit", "ladder", "--n", "16M", "--dtype", "i32", "--threads", "256", "--memory", "pinned",
                        "--csv", "l.csv", "--only", "01,07,cub", "--ncu"};
    wk_expect(&t, parse(&o, 15, l2) == 0 && o.n == 16777216 && o.dtype == WK_I32 && o.threads == 256 &&
                      o.memory == WK_MEMORY_PINNED && strcmp(o.csv_path, "l.csv") == 0 && o.ncu,
              "ladder options parse");
    wk_expect(&t, wk_cli_selected(o.only, "07") && wk_cli_selected(o.only, "cub") && !wk_cli_selected(o.only, "0") &&
                      !wk_cli_selected(o.only, "12"),
              "--only selects exactly its rows");
    wk_expect(&t, wk_cli_selected(NULL, "12"), "no --only selects every row");
    const char *l7[] = {"warpkit", "ladder", "--n", "2^24", "--n", "1000003"};
    wk_expect(&t, parse(&o, 6, l7) == 0 && o.n == 1000003 && o.n_given, "the last --n wins");
    wk_expect(&t, parse(&o, 2, l1) == 0 && !o.n_given, "no --n given");

    wk_expect(&t, parse(&o, 2, l1) == 0 && o.primitive == WK_PRIMITIVE_REDUCE, "--op defaults to reduce");
    const char *p1[] = {"warpkit", "bench", "--op", "scan", "--max-n", "2^20"};
    wk_expect(&t, parse(&o, 6, p1) == 0 && o.primitive == WK_PRIMITIVE_SCAN && o.max_n == ((size_t)1 << 20),
              "bench --op scan");
    const char *p1s[] = {"warpkit", "bench", "--op", "select", "--min-n", "2^12", "--json", "sel.json"};
    wk_expect(&t, parse(&o, 8, p1s) == 0 && o.primitive == WK_PRIMITIVE_SELECT && o.min_n == 4096 &&
                      strcmp(o.json_path, "sel.json") == 0,
              "bench --op select");
    const char *p2[] = {"warpkit", "ladder", "--op", "scan", "--op", "reduce"};
    wk_expect(&t, parse(&o, 6, p2) == 0 && o.primitive == WK_PRIMITIVE_REDUCE, "the last --op wins");
    const char *p3[] = {"warpkit", "ladder", "--op", "scan", "--only", "s1,s123,cub", "--dtype", "f32"};
    wk_expect(&t, parse(&o, 8, p3) == 0 && o.primitive == WK_PRIMITIVE_SCAN && o.dtype == WK_F32 &&
                      wk_cli_selected(o.only, "s123") && !wk_cli_selected(o.only, "s2"),
              "ladder --op scan with --only");
    wk_expect(&t, parse(&o, 2, l1) == 0 && o.regime == WK_REGIME_COLD, "--regime defaults to cold");
    const char *r1[] = {"warpkit", "bench", "--regime", "graph", "--op", "scan"};
    wk_expect(&t, parse(&o, 6, r1) == 0 && o.regime == WK_REGIME_GRAPH, "--regime graph");
    const char *r2[] = {"warpkit", "bench", "--regime", "all"};
    wk_expect(&t, parse(&o, 4, r2) == 0 && o.regime == WK_REGIME_ALL, "--regime all");
    for (int k = WK_PRIMITIVE_REDUCE; k <= WK_PRIMITIVE_SEGMENTED_REPRO; ++k) {
        wk_primitive got;
        wk_expect(&t, wk_parse_primitive(wk_primitive_name((wk_primitive)k), &got) == 0 && got == (wk_primitive)k,
                  "primitive round trip");
    }
    wk_primitive prim;
    wk_expect(&t, wk_parse_primitive(NULL, &prim) == -1 && wk_parse_primitive("Scan", &prim) == -1 &&
                      wk_parse_primitive("selects", &prim) == -1,
              "primitive names are exact");

    /* --help, -h and help COMMAND. */
    const char *h1[] = {"warpkit", "--help"};
    wk_expect(&t, parse(&o, 2, h1) == 0 && o.help && strcmp(o.command, "help") == 0, "warpkit --help");
    const char *h2[] = {"warpkit", "-h"};
    wk_expect(&t, parse(&o, 2, h2) == 0 && o.help && strcmp(o.command, "help") == 0, "warpkit -h");
    wk_expect(&t, parse(&o, 1, a2) == 0 && o.help, "no command: the usage");
    const char *h3[] = {"warpkit", "bench", "--help"};
    wk_expect(&t, parse(&o, 3, h3) == 0 && o.help && strcmp(o.command, "bench") == 0, "warpkit bench --help");
    const char *h4[] = {"warpkit", "ladder", "--threads", "96", "-h"};
    wk_expect(&t, parse(&o, 5, h4) == 0 && o.help && strcmp(o.command, "ladder") == 0,
              "--help wins over a bad option");
    const char *h5[] = {"warpkit", "help", "verify"};
    wk_expect(&t, parse(&o, 3, h5) == 0 && o.help && strcmp(o.command, "verify") == 0, "warpkit help verify");
    wk_expect(&t, parse(&o, 2, l1) == 0 && !o.help, "no --help given");
    const char *commands[] = {"info", "verify", "bench", "ladder", "tune"};
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i) {
        const char *text = wk_cli_usage(commands[i]);
        char want[64], label[96];
        snprintf(want, sizeof want, "usage: warpkit %s", commands[i]);
        snprintf(label, sizeof label, "the usage of %s names it", commands[i]);
        wk_expect(&t, text && strncmp(text, want, strlen(want)) == 0, label);
        snprintf(label, sizeof label, "the usage of %s is its own", commands[i]);
        wk_expect(&t, text && text != wk_cli_usage("help") && !strstr(text, "commands:"), label);
    }
    wk_expect(&t, strstr(wk_cli_usage("bench"), "--op OP") && !strstr(wk_cli_usage("bench"), "--threads"),
              "bench's usage has its options only");
    wk_expect(&t, strstr(wk_cli_usage("ladder"), "--threads N") && !strstr(wk_cli_usage("ladder"), "--min-n"),
              "ladder's usage has its options only");
    wk_expect(&t, strstr(wk_cli_usage("verify"), "--quick") && !strstr(wk_cli_usage("verify"), "--json"),
              "verify's usage has its options only");
    wk_expect(&t, strstr(wk_cli_usage("help"), "commands:") && strstr(wk_cli_usage("help"), "tune"),
              "the whole usage lists the commands");
    wk_expect(&t, !wk_cli_usage("frobnicate") && !wk_cli_usage(NULL), "no usage for an unknown command");

    for (int k = WK_MEMORY_DEVICE; k <= WK_MEMORY_PAGEABLE; ++k) {
        wk_memory_kind m;
        wk_expect(&t, wk_parse_memory(wk_memory_name((wk_memory_kind)k), &m) == 0 && m == (wk_memory_kind)k,
                  "memory kind round trip");
    }
    check_refusals(&t);
    return wk_tally_finish(&t);
}
