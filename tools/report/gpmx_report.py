#!/usr/bin/env python3
"""gpmx report: PNG figures and one Markdown page from gpmx's JSON results.

Usage: python3 gpmx_report.py RESULTS.json... -o DIR

Reads the JSON that these commands write (with --json or --out FILE) and
tells each input's kind from its content, never from its file name:

  gpmx bench exec        rows loop_fill, kernel_fill_Nw, block_reduce_Nw, ...
  gpmx bench pm          rows log_hcl_N, log_conv_N, dfence_..., pm_checkpoint_save_...
  gpmx bench workloads   rows W_epoch, W_sbrp, W_cap_mm, W_restore
  gpmx bench kvs         rows gpkvs_epoch_sets, gpkvs_sbrp_sets, rocksdb_sets
  gpmx bench checkpoint  rows fs_seq_durable_write, W_compute, W_cap_fs, W_cap_mm, W_gpmx
  gpmx bench check       rows check/LABEL/STYLE, find/W/BUG/STRATEGY
  gpmx check --json      one object with a "checked" field (and strategy, images,
                         seconds, failures)
  gpmx sim figure N      figure-N.json: an object with "figure", "series", "workloads"
  gpmx sim W --json      an object with "simulated", "workload", "config"
  gpmx bench tx          rows tx_CFG_BW_MODE, calibrate_BW_Nt, calibrate_BW_threshold

and draws, into DIR, bar charts normalized to each benchmark's baseline (a
dashed line at 1.0, the baseline named in the axis label):

  exec_ratios.png             kernel time / plain loop time; 1 worker / N workers
  pm_logs.png                 HCL speed-up over the conventional log, per thread count
  pm_checkpoint.png           checkpoint save speed-up over a plain copy + persist
  workloads_throughput.png    sbrp throughput / epoch throughput, per workload
  workloads_amplification.png CAP-mm bytes written and time / gpmx's
  workloads_restoration.png   recovery time / one batch's time (median, worst)
  gpkvs_vs_rocksdb.png        gpKVS SET throughput / RocksDB's
  checkpoint.png              CAP-fs and CAP-mm time / gpmx time, save and restore
  check_find.png              images and seconds each strategy needed to find
                              each seeded bug (bench check; not normalized)
  check_reports.png           the same from gpmx check --json reports, merged
  sim_figure.png              a timed-mode figure of SBRP's, the paper's values as ticks
  sim_runs.png                simulated kernel time, first input's over each run's
                              (all gpmx sim --json inputs merged)
  tx_speedups.png             helper warps on and adaptive: time off / time, per bandwidth
  tx_calibration.png          the threshold's write-pressure test: time off / time on

and DIR/report.md, which embeds the figures (relative links) with a caption
and a table of the numbers under each. Several inputs of one benchmark kind
each get their own figures, numbered -1, -2, ... in input order; all
`gpmx check --json` reports are merged into one figure.

Exit status: 0 done; 1 an output could not be written; 2 bad usage, a
missing or unreadable input, invalid JSON, an unknown kind, or a known kind
missing a field it needs (then nothing is drawn); 3 matplotlib is missing.
When matplotlib is missing from the python3 running this script and
/usr/bin/python3 (where Debian's python3-matplotlib installs) has it, the
script runs itself again with /usr/bin/python3.

Needs only the Python standard library and matplotlib (Agg back end).
Every figure of a kind has the same pixel size (fixed figsize and dpi).
"""

import argparse
import json
import math
import os
import re
import sys

EXIT_WRITE = 1
EXIT_BAD_INPUT = 2
EXIT_NO_MATPLOTLIB = 3

DPI = 100
# Figure file stem -> (width, height) in inches; pixels are these times DPI.
SIZES = {
    "exec_ratios": (9.0, 4.0),
    "pm_logs": (7.0, 4.0),
    "pm_checkpoint": (7.0, 4.0),
    "workloads_throughput": (10.0, 4.5),
    "workloads_amplification": (7.0, 4.0),
    "workloads_restoration": (10.0, 4.5),
    "gpkvs_vs_rocksdb": (7.0, 4.0),
    "checkpoint": (10.0, 4.5),
    "check_find": (11.0, 7.0),
    "check_reports": (11.0, 7.0),
    "sim_figure": (12.0, 4.5),
    "sim_runs": (10.0, 4.5),
    "tx_speedups": (12.0, 4.5),
    "tx_calibration": (12.0, 4.5),
}

PROG = "gpmx report"


class BadInput(Exception):
    """An input that cannot be drawn; the message says what is wrong."""


# ---------------------------------------------------------------------------
# Reading rows


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def value(row, key, required=True):
    """The number row[key]; None where it is null or not finite (a missing
    value). A required key that is absent, or a value that is not a number,
    is an error."""
    name = row.get("name", "?")
    if key not in row:
        if required:
            raise BadInput("row '%s' has no field '%s'" % (name, key))
        return None
    v = row[key]
    if v is None:
        return None
    if not is_number(v):
        raise BadInput("row '%s': field '%s' is not a number (%s)" % (name, key, json.dumps(v)[:40]))
    v = float(v)
    return v if math.isfinite(v) else None


def text(row, key, required=False):
    if key not in row:
        if required:
            raise BadInput("row '%s' has no field '%s'" % (row.get("name", "?"), key))
        return ""
    v = row[key]
    if not isinstance(v, str):
        raise BadInput("row '%s': field '%s' is not a string" % (row.get("name", "?"), key))
    return v


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def stated_or_ratio(row, field, slower, faster):
    """The ratio `row` states in `field`, else slower's median time over faster's (None if either is missing)."""
    s = value(row, field, False) if row else None
    if s is None and slower and faster:
        s = ratio(value(slower, "median_ns"), value(faster, "median_ns"))
    return s


def runs_of(row):
    r = row.get("runs_ns")
    return len(r) if isinstance(r, list) else None


def fmt(v, digits=3):
    """A number for a table: about `digits` significant digits; 'missing'."""
    if v is None:
        return "missing"
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 10 ** digits:
        return "{:,.0f}".format(v)
    decimals = max(0, digits - 1 - int(math.floor(math.log10(a))))
    if decimals > 0 and abs(float("{:.{d}f}".format(v, d=decimals))) >= 10 ** (digits - decimals):
        decimals -= 1  # rounding carried into the next decade: 0.9997 -> 1.00, not 1.000
    return "{:,.{d}f}".format(v, d=decimals)


def fmt_int(v):
    return "missing" if v is None else "{:,}".format(int(round(v)))


def fmt_ms(ns):
    return "missing" if ns is None else fmt(ns / 1e6)


def md_cell(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


def md_table(headers, rows):
    out = ["| " + " | ".join(md_cell(h) for h in headers) + " |",
           "| " + " | ".join("---" for _ in headers) + " |"]
    for r in rows:
        out.append("| " + " | ".join(md_cell(c) for c in r) + " |")
    return "\n".join(out)


def unit_from_note(note):
    """'256 ops per run, test parameters' -> 'ops'."""
    m = re.match(r"\s*\d[\d,]*\s+(.+?)\s+per run", note or "")
    return m.group(1) if m else ""


# ---------------------------------------------------------------------------
# Figures (specs; drawn later, once every input has been read)


class Series:
    def __init__(self, label, values, hatched=None, color=None, marks=None):
        self.label = label
        self.values = values  # one per group; None: missing
        self.hatched = hatched or [False] * len(values)  # True: a lower bound (not found)
        self.color = color
        self.marks = marks  # one per group or None: a reference value (the paper's) drawn as a black tick


class Panel:
    def __init__(self, title, ylabel, groups, series, baseline=None, baseline_label=None,
                 log=False, value_format="%.2f", missing_text="missing"):
        self.title = title
        self.ylabel = ylabel
        self.groups = groups
        self.series = series
        self.baseline = baseline
        self.baseline_label = baseline_label
        self.log = log
        self.value_format = value_format
        self.missing_text = missing_text


class Figure:
    def __init__(self, kind, title, panels, caption, table, layout="row", hatch_label=None):
        self.kind = kind  # a key of SIZES
        self.title = title
        self.panels = panels
        self.caption = caption
        self.table = table  # (headers, rows)
        self.layout = layout
        self.hatch_label = hatch_label
        self.file = kind + ".png"


class Section:
    """What one input (or the merged check reports) adds to the report."""

    def __init__(self, heading, source, kind):
        self.heading = heading
        self.source = source  # input file names
        self.kind = kind
        self.figures = []
        self.notes = []  # paragraphs
        self.tables = []  # (title, headers, rows) drawn nowhere


# ---------------------------------------------------------------------------
# Kinds

KVS_NAMES = ("gpkvs_epoch_sets", "gpkvs_sbrp_sets", "rocksdb_sets")
RE_EXEC = re.compile(r"^(loop_fill|kernel_fill_\d+w|block_reduce_\d+w|warp_shuffle_\d+w)$")
RE_PM_LOG = re.compile(r"^log_(hcl|conv)_(\d+)$")
RE_PM_FENCE = re.compile(r"^(dfence|gpm_persist)_(\d+)lines_([a-z]+)_([a-z]+)$")
RE_PM_CKPT = re.compile(r"^pm_(plain_copy_persist|checkpoint_save)_([a-z0-9]+)$")
RE_CKPT = re.compile(r"^([a-z0-9-]+)_(compute|cap_fs|cap_mm|gpmx)$")
RE_WL = re.compile(r"^([a-z0-9-]+)_(epoch|sbrp|cap_mm|restore)$")
RE_BCHECK_TP = re.compile(r"^check/([^/]+)/([^/]+)$")
RE_BCHECK_FIND = re.compile(r"^find/([^/]+)/([^/]+)/([^/]+)$")
RE_TX = re.compile(r"^tx_([A-Z][0-9])_([0-9]+(?:MBps|GBps)|native)_(off|on|adaptive)$")
RE_TX_CAL = re.compile(r"^calibrate_([0-9]+(?:MBps|GBps)|native)_(?:([0-9]+)t|threshold)$")

KIND_TEXT = {
    "exec": "gpmx bench exec",
    "pm": "gpmx bench pm",
    "workloads": "gpmx bench workloads",
    "kvs": "gpmx bench kvs",
    "checkpoint": "gpmx bench checkpoint",
    "bench-check": "gpmx bench check",
    "check": "gpmx check --json",
    "sim-figure": "gpmx sim figure",
    "sim-run": "gpmx sim --json",
    "tx": "gpmx bench tx",
}


def detect(data):
    """The kind of one parsed input; BadInput when it is none gpmx writes."""
    if isinstance(data, dict):
        if "checked" in data:
            return "check"
        if "figure" in data and "series" in data and "workloads" in data:
            return "sim-figure"
        if "simulated" in data and "workload" in data and "config" in data:
            return "sim-run"
        keys = ", ".join(sorted(str(k) for k in data)[:6])
        raise BadInput("unknown kind: a JSON object with keys %s, not a gpmx check report, sim figure or sim run"
                       % (keys or "none"))
    if not isinstance(data, list):
        raise BadInput("unknown kind: a JSON %s, not gpmx benchmark rows or a check report" % type(data).__name__)
    if not data:
        raise BadInput("unknown kind: an empty list, no benchmark rows")
    for i, r in enumerate(data):
        if not isinstance(r, dict) or not isinstance(r.get("name"), str):
            raise BadInput("unknown kind: item %d of the list is not an object with a \"name\"" % i)
    names = [r["name"] for r in data]

    def any_name(pred):
        return any(pred(n) for n in names)

    if any_name(lambda n: RE_EXEC.match(n) is not None):
        return "exec"
    if any_name(lambda n: RE_PM_LOG.match(n) or RE_PM_FENCE.match(n) or RE_PM_CKPT.match(n)):
        return "pm"
    if any_name(lambda n: n in KVS_NAMES):
        return "kvs"
    if any_name(lambda n: RE_BCHECK_TP.match(n) or RE_BCHECK_FIND.match(n)):
        return "bench-check"
    if any_name(lambda n: n == "fs_seq_durable_write" or re.search(r"_(compute|cap_fs|gpmx)$", n)):
        return "checkpoint"
    if any(RE_WL.match(r["name"]) and (not r["name"].endswith("_cap_mm") or "write_amplification" in r)
           for r in data):
        return "workloads"
    if any_name(lambda n: RE_TX.match(n) or RE_TX_CAL.match(n)):
        return "tx"
    shown = ", ".join(names[:4]) + (", ..." if len(names) > 4 else "")
    raise BadInput("unknown kind: rows named %s are not from gpmx bench exec, pm, workloads, kvs, "
                   "checkpoint, check or tx" % shown)


def ignored_note(section, names):
    if names:
        section.notes.append("Rows not drawn (not understood by this report): %s." %
                             ", ".join("`%s`" % n for n in names))


# ---- gpmx bench exec ------------------------------------------------------


def parse_exec(rows, section):
    by = {}
    ignored = []
    for r in rows:
        if RE_EXEC.match(r["name"]):
            value(r, "median_ns")
            by[r["name"]] = r
        else:
            ignored.append(r["name"])
    fills = sorted((n for n in by if n.startswith("kernel_fill_")), key=lambda n: int(n[12:-1]))
    if not fills:
        raise BadInput("no kernel_fill_Nw row: nothing to compare with the plain loop")
    loop = by.get("loop_fill")
    fill_ratio = []
    for n in fills:
        v = value(by[n], "ratio_vs_loop", required=loop is None)
        if v is None and loop is not None:
            v = ratio(value(by[n], "median_ns"), value(loop, "median_ns"))
        fill_ratio.append(v)
    # Worker scaling, computed here: each family's 1-worker time over its N-worker time.
    scale_groups, scale_values, speedup_of = [], [], {}
    for fam in ("kernel_fill", "block_reduce", "warp_shuffle"):
        one = by.get(fam + "_1w")
        more = sorted((n for n in by if n.startswith(fam + "_") and n != fam + "_1w"),
                      key=lambda n: int(n[len(fam) + 1:-1]))
        for n in more:
            s = ratio(value(one, "median_ns"), value(by[n], "median_ns")) if one else None
            speedup_of[n] = s
            scale_groups.append("%s, %s workers" % (fam, n[len(fam) + 1:-1]))
            scale_values.append(s)
    reps = max((runs_of(r) or 0) for r in by.values())
    panels = [Panel("barrier-free kernel vs the same plain loop", "kernel time / loop time\n(plain C++ loop = 1.0)",
                    ["%s worker%s" % (n[12:-1], "" if n[12:-1] == "1" else "s") for n in fills],
                    [Series("kernel_fill", fill_ratio)], baseline=1.0, baseline_label="plain loop = 1.0")]
    if scale_groups:
        panels.append(Panel("worker scaling", "time with 1 worker / time with N\n(1 worker = 1.0)",
                            scale_groups, [Series("speed-up", scale_values, color="C1")], baseline=1.0,
                            baseline_label="1 worker = 1.0"))
    table_rows = []
    for n, r in by.items():
        table_rows.append([n, fmt_ms(value(r, "median_ns")), runs_of(r) or "missing",
                           fmt(value(r, "ratio_vs_loop", False)) if "ratio_vs_loop" in r else "",
                           fmt(speedup_of.get(n)) if n in speedup_of else "",
                           fmt(value(r, "ns_per_thread_barrier", False)) if "ns_per_thread_barrier" in r else "",
                           fmt(value(r, "ns_per_shuffle_lane", False)) if "ns_per_shuffle_lane" in r else ""])
    section.figures.append(Figure(
        "exec_ratios",
        "cpu executor: time ratios (median of %d run%s)" % (reps, "" if reps == 1 else "s"),
        panels,
        "bench exec has no single baseline. Left: the barrier-free kernel's time over the same work as a "
        "plain C++ loop (ratio_vs_loop; lower is better, 1.0 is the loop). Right: each benchmark's "
        "1-worker time over its N-worker time, computed here from median_ns (higher is better). "
        "Barrier and shuffle costs (ns) are in the table only.",
        (["benchmark", "median (ms)", "runs", "kernel / loop", "1w / Nw", "ns per thread-barrier",
          "ns per shuffle lane"], table_rows)))
    ignored_note(section, ignored)


# ---- gpmx bench pm --------------------------------------------------------


def parse_pm(rows, section):
    hcl, conv, fences, plain, save = {}, {}, [], {}, {}
    ignored = []
    for r in rows:
        n = r["name"]
        m = RE_PM_LOG.match(n)
        if m:
            value(r, "median_ns")
            (hcl if m.group(1) == "hcl" else conv)[int(m.group(2))] = r
            continue
        m = RE_PM_FENCE.match(n)
        if m:
            fences.append((m.group(1), int(m.group(2)), m.group(3), m.group(4), value(r, "ns_per_fence")))
            continue
        m = RE_PM_CKPT.match(n)
        if m:
            value(r, "median_ns")
            (plain if m.group(1) == "plain_copy_persist" else save)[m.group(2)] = r
            continue
        ignored.append(n)
    reps = max([(runs_of(r) or 0) for r in rows] + [0])
    if hcl or conv:
        threads = sorted(set(hcl) | set(conv))
        vals, table_rows = [], []
        for t in threads:
            h, c = hcl.get(t), conv.get(t)
            s = stated_or_ratio(c, "hcl_speedup", c, h)
            vals.append(s)
            table_rows.append([fmt_int(t),
                               fmt(value(h, "inserts_per_s", False)) if h else "missing",
                               fmt(value(h, "ns_per_insert", False)) if h else "missing",
                               fmt(value(c, "inserts_per_s", False)) if c else "missing",
                               fmt(value(c, "ns_per_insert", False)) if c else "missing",
                               fmt(s)])
        section.figures.append(Figure(
            "pm_logs", "HCL vs conventional log: time to insert one undo record per thread (ratio)",
            [Panel("", "conventional log time / HCL time\n(conventional log = 1.0)",
                   ["%s threads" % fmt_int(t) for t in threads], [Series("HCL", vals)], baseline=1.0,
                   baseline_label="conventional log = 1.0")],
            "Every thread inserts one 24-byte undo record; the bar is the conventional (partitioned, locked) "
            "log's median time over HCL's (hcl_speedup): above 1.0 HCL is faster. Median of %d run%s."
            % (reps, "" if reps == 1 else "s"),
            (["threads", "HCL inserts/s", "HCL ns/insert", "conventional inserts/s", "conventional ns/insert",
              "conventional time / HCL time"], table_rows)))
    if plain or save:
        places = sorted(set(plain) | set(save))
        vals, table_rows = [], []
        for p in places:
            a, b = plain.get(p), save.get(p)
            s = stated_or_ratio(b, "ratio_vs_plain", a, b)
            vals.append(s)
            nbytes = value(b or a, "bytes", False)
            table_rows.append([p, fmt_int(nbytes), fmt_ms(value(a, "median_ns")) if a else "missing",
                               fmt_ms(value(b, "median_ns")) if b else "missing", fmt(s)])
        section.figures.append(Figure(
            "pm_checkpoint", "checkpoint::save vs memcpy + one persist of the same bytes (time ratio)",
            [Panel("", "copy + persist time / checkpoint time\n(plain copy + persist = 1.0)",
                   ["file on %s" % p for p in places], [Series("checkpoint::save", vals)], baseline=1.0,
                   baseline_label="plain copy + persist = 1.0")],
            "The plain copy's median time over checkpoint::save's (ratio_vs_plain): above 1.0 the checkpoint "
            "is faster. Median of %d run%s." % (reps, "" if reps == 1 else "s"),
            (["file on", "bytes", "plain copy + persist (ms)", "checkpoint save (ms)", "plain / checkpoint"],
             table_rows)))
    if fences:
        by = {}
        for op, lines, dur, place, ns in fences:
            by.setdefault((place, dur, lines), {})[op] = ns
        section.tables.append((
            "Fence cost (not drawn: no baseline), ns per fence",
            ["place", "durability", "lines", "dfence (ns)", "gpm_persist (ns)"],
            [[k[0], k[1], k[2], fmt(v.get("dfence")), fmt(v.get("gpm_persist"))] for k, v in by.items()]))
    if not section.figures:
        section.notes.append("No log or checkpoint rows: no figure.")
    ignored_note(section, ignored)


# ---- gpmx bench workloads -------------------------------------------------


def parse_workloads(rows, section):
    tp, amp, rest, order = {}, {}, {}, []
    ignored = []
    for r in rows:
        m = RE_WL.match(r["name"])
        if not m:
            ignored.append(r["name"])
            continue
        w, what = m.group(1), m.group(2)
        if w not in order:
            order.append(w)
        if what in ("epoch", "sbrp"):
            value(r, "operations_per_second")
            tp.setdefault(w, {})[what] = r
        elif what == "cap_mm":
            value(r, "write_amplification")
            amp[w] = r
        else:
            value(r, "median_share_of_batch")
            value(r, "worst_share_of_batch")
            rest[w] = r
    if tp:
        ws = [w for w in order if w in tp]
        vals, table_rows = [], []
        for w in ws:
            e, s = tp[w].get("epoch"), tp[w].get("sbrp")
            v = value(s, "sbrp_vs_epoch", False) if s else None
            if v is None and e and s:
                v = ratio(value(s, "operations_per_second"), value(e, "operations_per_second"))
            vals.append(v)
            any_row = e or s
            table_rows.append([w, fmt(value(e, "operations_per_second")) if e else "missing",
                               fmt(value(s, "operations_per_second")) if s else "missing", fmt(v),
                               unit_from_note(text(any_row, "note")) or "?",
                               fmt_int(value(any_row, "bytes_written", False)),
                               fmt_int(value(any_row, "bytes_flushed", False))])
        reps = max((runs_of(r) or 0) for d in tp.values() for r in d.values())
        section.figures.append(Figure(
            "workloads_throughput",
            "workload throughput, sbrp style over epoch style (operations/s ratio, median of %d run%s)"
            % (reps, "" if reps == 1 else "s"),
            [Panel("", "sbrp throughput / epoch throughput\n(epoch = 1.0)", ws, [Series("sbrp", vals)],
                   baseline=1.0, baseline_label="epoch = 1.0")],
            "Each workload's throughput in the sbrp style over its throughput in the epoch style "
            "(sbrp_vs_epoch): above 1.0 sbrp is faster. Operations are counted in each workload's own unit "
            "(table).",
            (["workload", "epoch ops/s", "sbrp ops/s", "sbrp / epoch", "unit", "bytes written", "bytes flushed"],
             table_rows)))
    if amp:
        ws = [w for w in order if w in amp]
        wa = [value(amp[w], "write_amplification") for w in ws]
        tv = [value(amp[w], "cap_mm_time_vs_gpmx", False) for w in ws]
        table_rows = [[w, fmt_int(value(amp[w], "cap_mm_bytes", False)), fmt_int(value(amp[w], "gpmx_bytes", False)),
                       fmt(a), fmt_ms(value(amp[w], "median_ns")), fmt_ms(value(amp[w], "gpmx_median_ns", False)),
                       fmt(t)] for w, a, t in zip(ws, wa, tv)]
        section.figures.append(Figure(
            "workloads_amplification", "CAP-mm against gpmx: bytes written to PM and run time (ratios)",
            [Panel("", "CAP-mm / gpmx\n(gpmx = 1.0)", ws,
                   [Series("bytes written (write amplification)", wa), Series("time", tv)],
                   baseline=1.0, baseline_label="gpmx = 1.0")],
            "CAP-mm computes in DRAM and copies the whole structure to PM every batch. Bars: CAP-mm's bytes "
            "written over gpmx's (write_amplification) and CAP-mm's time over gpmx's (cap_mm_time_vs_gpmx); "
            "above 1.0 CAP-mm writes more or takes longer.",
            (["workload", "CAP-mm bytes", "gpmx bytes", "bytes ratio", "CAP-mm (ms)", "gpmx (ms)", "time ratio"],
             table_rows)))
    if rest:
        ws = [w for w in order if w in rest]
        med = [value(rest[w], "median_share_of_batch") for w in ws]
        worst = [value(rest[w], "worst_share_of_batch") for w in ws]
        table_rows = [[w, fmt(value(rest[w], "batch_ms", False)), fmt_ms(value(rest[w], "median_ns", False)),
                       fmt(value(rest[w], "worst_recovery_ms", False)), fmt(m), fmt(x),
                       runs_of(rest[w]) or "missing", fmt_int(value(rest[w], "crash_points_in_batch", False))]
                      for w, m, x in zip(ws, med, worst)]
        section.figures.append(Figure(
            "workloads_restoration", "restoration: recovery time after a SIGKILL in the last batch "
            "(share of one batch's time)",
            [Panel("", "recovery time / one batch's time\n(one batch = 1.0)", ws,
                   [Series("median", med), Series("worst", worst)], baseline=1.0,
                   baseline_label="one batch = 1.0")],
            "Each run is killed at up to 8 crash points in its last batch and recovered in a fresh process. "
            "Bars: the median and the worst recovery time over one batch's time (run time / batches). For "
            "native workloads recovery also finishes the remaining work.",
            (["workload", "batch (ms)", "median recovery (ms)", "worst recovery (ms)", "median / batch",
              "worst / batch", "crashes", "crash points in batch"], table_rows)))
    ignored_note(section, ignored)


# ---- gpmx bench kvs -------------------------------------------------------


def parse_kvs(rows, section):
    by, ignored = {}, []
    for r in rows:
        if r["name"] in KVS_NAMES:
            value(r, "operations_per_second")
            value(r, "median_ns")
            by[r["name"]] = r
        else:
            ignored.append(r["name"])
    stores = [n for n in KVS_NAMES[:2] if n in by]
    if not stores:
        raise BadInput("no gpkvs_epoch_sets or gpkvs_sbrp_sets row")
    rocks = by.get("rocksdb_sets")
    vals = []
    for n in stores:
        v = value(by[n], "vs_rocksdb", False)
        if v is None and rocks:
            v = ratio(value(by[n], "operations_per_second"), value(rocks, "operations_per_second"))
        vals.append(v)
    note = text(by[stores[0]], "note")
    shape = note.split(": ", 1)[1] if ": " in note else ""
    reps = max((runs_of(r) or 0) for r in by.values())
    labels = {"gpkvs_epoch_sets": "gpKVS epoch", "gpkvs_sbrp_sets": "gpKVS sbrp", "rocksdb_sets": "RocksDB"}
    table_rows = []
    for n in KVS_NAMES:
        r = by.get(n)
        if r is None:
            table_rows.append([labels[n], "missing", "missing", "missing", "missing"])
            continue
        table_rows.append([labels[n], fmt(value(r, "operations_per_second")), fmt_ms(value(r, "median_ns")),
                           "1.0 (baseline)" if n == "rocksdb_sets" else fmt(vals[stores.index(n)]),
                           fmt(value(r, "device_bytes_per_set", False))])
    caption = ("The same batched SETs of 8-byte keys and values on the same file system. Bars: gpKVS's "
               "throughput over RocksDB's (vs_rocksdb); above 1.0 gpKVS is faster. Median of %d run%s."
               % (reps, "" if reps == 1 else "s"))
    if rocks is None:
        caption += " RocksDB was not measured (no rocksdb_sets row): the ratios are missing."
    section.figures.append(Figure(
        "gpkvs_vs_rocksdb",
        "gpKVS vs RocksDB: SET throughput (operations/s ratio)" + ("\n" + shape if shape else ""),
        [Panel("", "throughput / RocksDB's\n(RocksDB = 1.0)", [labels[n] for n in stores],
               [Series("gpKVS", vals)], baseline=1.0, baseline_label="RocksDB = 1.0",
               missing_text="missing: no RocksDB")],
        caption,
        (["store", "SETs/s", "median (ms)", "throughput / RocksDB's", "device bytes per SET"], table_rows)))
    ignored_note(section, ignored)


# ---- gpmx bench tx --------------------------------------------------------


def bandwidth_mbps(label):
    """'1600MBps' -> 1600, '12GBps' -> 12000, 'native' -> 0 (for ordering)."""
    if label == "native":
        return 0
    n = int(re.match(r"[0-9]+", label).group(0))
    return n * 1000 if label.endswith("GBps") else n


def threshold_text(t):
    """A threshold in MB/s; -1 means a calibration found helpers never win."""
    if t is None:
        return "missing"
    return "none (never on)" if t < 0 else fmt(t)


def parse_tx(rows, section):
    sweep, cal, thresholds, ignored = {}, {}, {}, []
    cfgs, bws = [], []
    for r in rows:
        n = r["name"]
        m = RE_TX.match(n)
        if m:
            cfg, bw, mode = m.groups()
            value(r, "median_ns")
            if mode != "off":
                value(r, "speedup_vs_off")
            sweep.setdefault((cfg, bw), {})[mode] = r
            cfgs += [cfg] if cfg not in cfgs else []
            bws += [bw] if bw not in bws else []
            continue
        m = RE_TX_CAL.match(n)
        if m:
            bw, threads = m.groups()
            if threads is None:
                thresholds[bw] = value(r, "threshold_mbps")
            else:
                value(r, "on_over_off")
                value(r, "off_persist_mbps")
                cal.setdefault(bw, []).append((int(threads), r))
            continue
        ignored.append(n)
    if sweep:
        bws_sorted = sorted(bws, key=bandwidth_mbps)
        panels, table_rows = [], []
        for bw in bws_sorted:
            on, ad = [], []
            for cfg in cfgs:
                row = sweep.get((cfg, bw), {})
                on.append(value(row["on"], "speedup_vs_off") if "on" in row else None)
                ad.append(value(row["adaptive"], "speedup_vs_off") if "adaptive" in row else None)
                table_rows.append([cfg, bw] + [fmt(value(row[k], "tx_per_s", False)) if k in row else "missing"
                                              for k in ("off", "on", "adaptive")] +
                                  [fmt(on[-1]), fmt(ad[-1]),
                                   fmt(value(row["adaptive"], "vs_best_fixed", False)) if "adaptive" in row else "missing",
                                   threshold_text(value(row["adaptive"], "threshold_mbps", False)) if "adaptive" in row
                                   else "missing",
                                   fmt_int(value(row["adaptive"], "helper_switches", False)) if "adaptive" in row
                                   else "missing"])
            panels.append(Panel("NVRAM " + bw, "time off / time\n(helpers off = 1.0)", cfgs,
                                [Series("helpers on", on), Series("adaptive", ad)], baseline=1.0,
                                baseline_label="helpers off = 1.0"))
        timed = any("simulated on" in text(r, "note") for d in sweep.values() for r in d.values())
        section.figures.append(Figure(
            "tx_speedups",
            "GPU transactions: helper warps on and adaptive over off (%s)" %
            ("simulated kernel time" if timed else "median kernel time"),
            panels,
            "Each configuration's kernel time with helper warps off over its time with helpers on and adaptive "
            "(speedup_vs_off), one panel per NVRAM write bandwidth: above 1.0 faster than off. The table adds "
            "adaptive against the better fixed setting (vs_best_fixed), its threshold and its switches.",
            (["config", "NVRAM", "off tx/s", "on tx/s", "adaptive tx/s", "on / off", "adaptive / off",
              "adaptive / best fixed", "threshold (MB/s)", "switches"], table_rows)))
    if cal:
        bws_sorted = sorted(cal, key=bandwidth_mbps)
        threads = sorted({t for v in cal.values() for t, _ in v})
        series, table_rows = [], []
        for bw in bws_sorted:
            by = dict(cal[bw])
            series.append(Series(bw, [value(by[t], "on_over_off") if t in by else None for t in threads]))
            for t in threads:
                if t in by:
                    table_rows.append([bw, fmt_int(t), fmt(value(by[t], "off_persist_mbps")),
                                       fmt(value(by[t], "on_over_off"))])
            th = thresholds.get(bw)
            table_rows.append([bw, "threshold", threshold_text(th), ""])
        section.figures.append(Figure(
            "tx_calibration",
            "Threshold calibration: the write-pressure test, helpers on over off by committer threads",
            [Panel("", "time off / time on\n(helpers off = 1.0)", [fmt_int(t) for t in threads], series,
                   baseline=1.0, baseline_label="helpers off = 1.0")],
            "The write-pressure test at growing committer threads, one series per NVRAM bandwidth: helpers on "
            "over off (above 1.0 helpers win). The threshold is set between the bandwidths helpers off measured "
            "at the last losing and the first winning pressure (table: off MB/s of log, and each bandwidth's "
            "threshold).",
            (["NVRAM", "committer threads", "off persistence (MB/s)", "on / off"], table_rows)))
    ignored_note(section, ignored)


# ---- gpmx bench checkpoint -----------------------------------------------


def parse_checkpoint(rows, section):
    by, order, ignored, fs = {}, [], [], None
    for r in rows:
        n = r["name"]
        if n == "fs_seq_durable_write":
            fs = r
            continue
        m = RE_CKPT.match(n)
        if not m:
            ignored.append(n)
            continue
        w, method = m.group(1), m.group(2)
        value(r, "median_ns")
        if method != "compute":
            value(r, "restore_ms")
        if w not in order:
            order.append(w)
        by.setdefault(w, {})[method] = r
    ws = [w for w in order if "gpmx" in by[w]]
    if not ws:
        raise BadInput("no W_gpmx row: no gpmx checkpoint to compare")

    def speedup(w, base, key, scale):
        b, g = by[w].get(base), by[w]["gpmx"]
        if b is None:
            return None
        return ratio(value(b, key) * scale, value(g, key) * scale)

    save_fs = [speedup(w, "cap_fs", "median_ns", 1) for w in ws]
    save_mm = [speedup(w, "cap_mm", "median_ns", 1) for w in ws]
    rest_fs = [speedup(w, "cap_fs", "restore_ms", 1) for w in ws]
    rest_mm = [speedup(w, "cap_mm", "restore_ms", 1) for w in ws]
    reps = max((runs_of(r) or 0) for d in by.values() for r in d.values())

    def ms(w, method, key):
        r = by[w].get(method)
        if r is None:
            return "missing"
        return fmt_ms(value(r, key)) if key == "median_ns" else fmt(value(r, key))

    table_rows = [[w, fmt_int(value(by[w]["gpmx"], "bytes", False)),
                   ms(w, "cap_fs", "median_ns"), ms(w, "cap_mm", "median_ns"), ms(w, "gpmx", "median_ns"),
                   ms(w, "cap_fs", "restore_ms"), ms(w, "cap_mm", "restore_ms"), ms(w, "gpmx", "restore_ms")]
                  for w in ws]
    series = lambda a, b: [Series("vs CAP-fs", a), Series("vs CAP-mm", b)]
    caption = ("One checkpoint (left) and one restore (right) of each workload's state, the same bytes each "
               "way. Bars: CAP-fs's and CAP-mm's median time over gpmx's checkpoint (speed-up; above 1.0 "
               "gpmx is faster). CAP-fs writes a file with write() and fsync(); CAP-mm copies into a "
               "mapped pool region and persists from the host.")
    if fs is not None:
        bps = value(fs, "bytes_per_s", False)
        caption += " The file system's sequential durable write: %s GB/s." % fmt(None if bps is None else bps / 1e9)
    section.figures.append(Figure(
        "checkpoint", "checkpoints: gpmx vs CAP-fs and CAP-mm (time ratio, median of %d run%s)"
        % (reps, "" if reps == 1 else "s"),
        [Panel("checkpoint save", "baseline time / gpmx time\n(baseline = 1.0)", ws, series(save_fs, save_mm),
               baseline=1.0, baseline_label="baseline = 1.0"),
         Panel("restore", "baseline time / gpmx time\n(baseline = 1.0)", ws, series(rest_fs, rest_mm),
               baseline=1.0, baseline_label="baseline = 1.0")],
        caption,
        (["workload", "state bytes", "CAP-fs save (ms)", "CAP-mm save (ms)", "gpmx save (ms)",
          "CAP-fs restore (ms)", "CAP-mm restore (ms)", "gpmx restore (ms)"], table_rows)))
    ignored_note(section, ignored)


# ---- gpmx bench check and gpmx check --json ------------------------------

STRATEGY_ORDER = ["mixed", "minimal", "maximal", "drop-one", "random", "exhaustive", "pmreorder"]


def find_figure(kind, title, finds, caption):
    """finds: list of (group, strategy, found, images, seconds)."""
    groups, strategies = [], []
    for g, s, _, _, _ in finds:
        if g not in groups:
            groups.append(g)
        if s not in strategies:
            strategies.append(s)
    strategies.sort(key=lambda s: (STRATEGY_ORDER.index(s) if s in STRATEGY_ORDER else len(STRATEGY_ORDER), s))
    cell = {(g, s): (f, i, t) for g, s, f, i, t in finds}

    def series(idx):
        out = []
        for k, s in enumerate(strategies):
            vals, hatched = [], []
            for g in groups:
                c = cell.get((g, s))
                vals.append(None if c is None else c[idx])
                hatched.append(c is not None and not c[0])
            color = "0.45" if s == "pmreorder" else "C%d" % k
            out.append(Series(s + (" (baseline)" if s == "pmreorder" else ""), vals, hatched, color))
        return out

    table_rows = []
    for g in groups:
        for s in strategies:
            c = cell.get((g, s))
            if c is None:
                continue
            f, i, t = c
            table_rows.append([g, s, "yes" if f else "no", fmt_int(i), fmt(t)])
    return Figure(
        kind, title,
        [Panel("images checked until the bug was found", "images (log scale)", groups, series(1), log=True,
               value_format="%d"),
         Panel("time until the bug was found", "seconds (log scale)", groups, series(2), log=True,
               value_format=None)],
        caption,
        (["workload / bug", "strategy", "found", "images", "seconds"], table_rows),
        layout="col", hatch_label="hatched: not found (all images checked)")


def parse_bench_check(rows, section):
    tp, finds, ignored = [], [], []
    for r in rows:
        n = r["name"]
        m = RE_BCHECK_FIND.match(n)
        if m:
            found = value(r, "found")
            finds.append(("%s/%s" % (m.group(1), m.group(2)), m.group(3), bool(found),
                          value(r, "images_to_find"), value(r, "seconds_to_find")))
            continue
        m = RE_BCHECK_TP.match(n)
        if m:
            tp.append([m.group(1), m.group(2), fmt(value(r, "images_per_s")), fmt_int(value(r, "images", False)),
                       fmt_int(value(r, "crash_points", False)), fmt_int(value(r, "failed_images", False))])
            continue
        ignored.append(n)
    if finds:
        section.figures.append(find_figure(
            "check_find", "crash checker: images and seconds to find each seeded bug, per strategy",
            finds,
            "Not normalized: the pmreorder-style baseline (grey) does not find every bug, so there is no ratio "
            "to draw for those. Each bar is one run that stops at the first failing image; the images are "
            "those started by then (images_to_find). Hatched: the bug was not found, and the bar is every "
            "image checked (up to --find-cap) and the time taken. Lower is better."))
    if tp:
        section.tables.append(("Checker throughput on correct code (not drawn)",
                               ["workload", "style", "images/s", "images", "crash points", "failed images"], tp))
    if not finds:
        section.notes.append("No find/... rows (run without --no-bugs to get them): no figure.")
    ignored_note(section, ignored)


RE_CHECKED = re.compile(r"^(\S+) \(([\w-]+) style(?:, seeded bug (\S+))?\)$")


def parse_check_report(data):
    """One gpmx check --json report -> (group, strategy, found, images, seconds)."""
    for key in ("strategy", "images", "seconds", "failures"):
        if key not in data:
            raise BadInput("the report has no field '%s'" % key)
    row = dict(data, name="report")
    checked = text(row, "checked", required=True)
    strategy = text(row, "strategy", required=True)
    images = value(row, "images")
    seconds = value(row, "seconds")
    failures = data["failures"]
    if not isinstance(failures, list):
        raise BadInput("the report's field 'failures' is not a list")
    m = RE_CHECKED.match(checked)
    group = ("%s/%s" % (m.group(1), m.group(3) or "no bug (%s)" % m.group(2))) if m else checked
    if failures:
        first = failures[0]
        if not isinstance(first, dict):
            raise BadInput("the report's failures[0] is not an object")
        first = dict(first, name="failures[0]")
        return group, strategy, True, value(first, "found_after_images"), value(first, "found_after_s")
    return group, strategy, False, images, seconds


# ---- gpmx sim figure (the timed mode's reproduction of SBRP's figures) -----


def parse_sim_figure(data, section):
    groups = [str(w) for w in data["workloads"]]
    if not isinstance(data["series"], list) or not data["series"]:
        raise BadInput("\"series\" is not a non-empty list")
    share = "share" in str(data.get("value", ""))
    series, table_rows = [], []
    for sr in data["series"]:
        name = text(sr, "name", True)
        bars = {text(b, "workload", True): b for b in sr["bars"]}
        vals = [value(bars[w], "gpmx", False) if w in bars else None for w in groups]
        marks = [value(bars[w], "paper", False) if w in bars else None for w in groups]
        vals.append(value(sr, "mean", False))
        marks.append(value(sr, "paper_mean", False))
        series.append(Series(name, vals, marks=marks if any(m is not None for m in marks) else None))
        for w, v, m in zip(groups + ["mean"], vals, marks):
            table_rows.append([name, w, fmt(v), fmt(m) if m is not None else "-"])
    unit = str(data.get("value", ""))
    section.figures.append(Figure(
        "sim_figure", "Figure %s (timed mode): %s" % (data["figure"], data.get("title", "")),
        [Panel("", unit + (" (share)" if share else ""), groups + ["mean"], series,
               baseline=None if share else 1.0, baseline_label=None if share else "baseline = 1.0")],
        "gpmx's simulated result for each workload and persistency model (bars) beside the paper's number "
        "where the paper gives one (black ticks); `mean` is each series' %s. Sets: %s. The runs behind each "
        "bar are in the figure's JSON (`runs`)." % (data["series"][0].get("mean_kind", "mean"),
                                                    ", ".join(str(x) for x in data.get("sets") or []) or "all"),
        (["series", "workload", "gpmx", "paper"], table_rows)))


# ---- gpmx sim W --json (one timed run each; all inputs merged) --------------


def sim_run_label(r):
    model = r.get("persistency", {}).get("model", "") if isinstance(r.get("persistency"), dict) else ""
    parts = [str(r["workload"]), str(r.get("style", "")), str(r["config"].get("name", "")), str(model)]
    return "/".join(p for p in parts if p)


def sim_runs_figure(runs):
    labels = [sim_run_label(r) for _, r in runs]
    ps = [value(r["simulated"], "kernel_ps") for _, r in runs]
    base = ps[0]
    speedups = [ratio(base, p) for p in ps]
    table_rows = [[os.path.basename(path), lab, "yes" if r.get("verified") else "NO",
                   fmt_int(value(r["simulated"], "kernel_cycles", False)), fmt(value(r["simulated"], "kernel_ns")),
                   fmt(s), fmt(value(r, "wall_seconds", False))]
                  for (path, r), lab, s in zip(runs, labels, speedups)]
    return Figure(
        "sim_runs", "timed mode: simulated kernel time, speedup over %s" % labels[0],
        [Panel("", "%s time / run's time\n(%s = 1.0)" % (labels[0], labels[0]), labels,
               [Series("simulated kernel time", speedups)], baseline=1.0, baseline_label="first input = 1.0")],
        "Each `gpmx sim W --json` given, as the simulated kernel time of the first input over this run's "
        "(above 1.0: faster in simulated time). Labels are workload/style/configuration/persistency model.",
        (["input", "run", "verified", "kernel cycles", "kernel ns", "speedup over the first", "wall s"],
         table_rows))


PARSERS = {
    "exec": parse_exec,
    "pm": parse_pm,
    "workloads": parse_workloads,
    "kvs": parse_kvs,
    "checkpoint": parse_checkpoint,
    "bench-check": parse_bench_check,
    "sim-figure": parse_sim_figure,
    "tx": parse_tx,
}


# ---------------------------------------------------------------------------
# Drawing


def draw(fig_spec, path, plt, Patch):
    size = SIZES[fig_spec.kind]
    n = len(fig_spec.panels)
    if fig_spec.layout == "col":
        fig, axes = plt.subplots(n, 1, figsize=size, dpi=DPI, squeeze=False)
    else:
        fig, axes = plt.subplots(1, n, figsize=size, dpi=DPI, squeeze=False)
    axes = [a for row in axes for a in row]
    any_hatched = False
    any_marks = False
    for ax, p in zip(axes, fig_spec.panels):
        ns = max(1, len(p.series))
        width = (0.8 if len(p.groups) > 3 else 0.5) / ns
        drawable = (lambda v: v is not None and v > 0) if p.log else (lambda v: v is not None)
        finite = [v for s in p.series for v in s.values + (s.marks or []) if drawable(v)]
        total_bars = len(p.groups) * ns
        for k, s in enumerate(p.series):
            color = s.color or "C%d" % k
            xs = [i + (k - (ns - 1) / 2.0) * width for i in range(len(p.groups))]
            solid_x = [x for x, v, h in zip(xs, s.values, s.hatched) if drawable(v) and not h]
            solid_v = [v for v, h in zip(s.values, s.hatched) if drawable(v) and not h]
            hatch_x = [x for x, v, h in zip(xs, s.values, s.hatched) if drawable(v) and h]
            hatch_v = [v for v, h in zip(s.values, s.hatched) if drawable(v) and h]
            ax.bar(solid_x, solid_v, width, color=color, label=s.label, zorder=2)
            if s.marks:
                mx = [x for x, m in zip(xs, s.marks) if m is not None]
                my = [m for m in s.marks if m is not None]
                ax.scatter(mx, my, marker="_", s=160, color="black", zorder=4,
                           label="paper" if not any_marks else None)
                any_marks = any_marks or bool(mx)
            if hatch_x:
                any_hatched = True
                ax.bar(hatch_x, hatch_v, width, facecolor="white", edgecolor=color, hatch="///", zorder=2)
            for x, v in zip(xs, s.values):
                if not drawable(v):  # missing, or 0 on a log scale: said in words, never drawn as a bar
                    ax.text(x, 0.03, p.missing_text if v is None else fmt(v, 2), transform=ax.get_xaxis_transform(),
                            rotation=90, ha="center", va="bottom", fontsize=7, color="0.35", style="italic")
                elif total_bars <= 24:
                    if p.value_format is None:
                        label = fmt(v, 2)
                    else:
                        label = p.value_format % v
                    ax.text(x, v, label, ha="center", va="bottom", fontsize=7, zorder=3)
        if p.baseline is not None:
            ax.axhline(p.baseline, color="black", linewidth=0.9, linestyle="--", zorder=3,
                       label=p.baseline_label)
        if p.log:
            ax.set_yscale("log")
            if finite:
                ax.set_ylim(min(finite) / 2.0, max(finite) * 3.0)
        else:
            top = max(finite + [p.baseline or 0.0, 1e-9])
            ax.set_ylim(0, top * 1.2)
        ax.set_xticks(range(len(p.groups)))
        many = max([len(g) for g in p.groups] + [0]) * len(p.groups) > 110
        ax.set_xticklabels(p.groups, rotation=30 if many else 0, ha="right" if many else "center",
                           fontsize=7 if many else 8)
        ax.set_xlim(-0.6, len(p.groups) - 0.4)
        ax.set_ylabel(p.ylabel, fontsize=8)
        ax.tick_params(axis="y", labelsize=7)
        if p.title:
            ax.set_title(p.title, fontsize=9)
        ax.grid(axis="y", color="0.9", zorder=0)
        handles, labels = ax.get_legend_handles_labels()
        if fig_spec.hatch_label and any_hatched and ax is axes[0]:
            handles.append(Patch(facecolor="white", edgecolor="0.3", hatch="///"))
            labels.append(fig_spec.hatch_label)
        if handles:
            # Side by side, three or more panels are too narrow for a legend in one row.
            ncol = min(5, len(handles)) if n <= 2 or fig_spec.layout == "col" else 1
            ax.legend(handles, labels, fontsize=7, ncol=ncol, loc="best")
    fig.suptitle(fig_spec.title, fontsize=10)
    try:
        fig.tight_layout()
    except Exception:  # layout is cosmetic; the size is fixed either way
        pass
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


# ---------------------------------------------------------------------------
# Main


def fail(msg, code=EXIT_BAD_INPUT):
    sys.stderr.write("%s: %s\n" % (PROG, msg))
    sys.exit(code)


def import_matplotlib():
    """(pyplot, Patch), or exit 3; reruns under /usr/bin/python3 when that one has matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.patches import Patch
        return plt, Patch
    except ImportError:
        problem = "is not installed for %s" % (sys.executable or "python3")
    except Exception as e:  # a broken installation: say so, without a traceback
        problem = "cannot be loaded by %s (%s: %s)" % (sys.executable or "python3", type(e).__name__, e)
    system = "/usr/bin/python3"
    script = sys.argv[0]
    if (os.environ.get("GPMX_REPORT_RERUN") != "1" and os.path.isfile(system) and os.path.isfile(script)
            and os.path.realpath(sys.executable) != os.path.realpath(system)):
        os.environ["GPMX_REPORT_RERUN"] = "1"
        try:
            os.execv(system, [system, script] + sys.argv[1:])
        except OSError:
            pass
    fail("matplotlib %s: install python3-matplotlib (Debian: apt-get install python3-matplotlib)" % problem,
         EXIT_NO_MATPLOTLIB)


def load(path):
    if not os.path.exists(path):
        raise BadInput("no such file")
    if os.path.isdir(path):
        raise BadInput("is a directory, not a JSON file")
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise BadInput("cannot read: %s" % (e.strerror or e))
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise BadInput("not valid JSON: not UTF-8 text")
    except ValueError as e:
        raise BadInput("not valid JSON: %s" % e)
    except RecursionError:
        raise BadInput("not valid JSON: nested too deeply")


class Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        fail(message)


def main(argv):
    ap = Parser(prog=PROG, description="Figures and a Markdown page from gpmx's JSON results.")
    ap.add_argument("inputs", nargs="+", metavar="RESULTS.json")
    ap.add_argument("-o", "--out", required=True, metavar="DIR", help="directory for the PNGs and report.md")
    args = ap.parse_args(argv)

    sections, checks, sim_runs, errors = [], [], [], []
    counts = {}
    for path in args.inputs:
        try:
            data = load(path)
            kind = detect(data)
            sec = Section(KIND_TEXT[kind], [os.path.basename(path)], kind)
            try:
                if kind == "check":
                    checks.append((path, parse_check_report(data)))
                    continue
                if kind == "sim-run":
                    if not isinstance(data["simulated"], dict) or not isinstance(data["config"], dict):
                        raise BadInput("\"simulated\" or \"config\" is not an object")
                    value(data["simulated"], "kernel_ps")
                    value(data["simulated"], "kernel_ns")
                    sim_runs.append((path, data))
                    continue
                PARSERS[kind](data, sec)
            except BadInput as e:
                raise BadInput("%s output: %s" % (KIND_TEXT[kind], e))
            except (TypeError, ValueError, KeyError, AttributeError, IndexError) as e:
                # A shape the checks above did not foresee: still the file's fault, not a traceback.
                raise BadInput("%s output: unexpected content (%s: %s)" % (KIND_TEXT[kind], type(e).__name__, e))
            sections.append(sec)
            counts[kind] = counts.get(kind, 0) + 1
        except BadInput as e:
            errors.append("%s: %s" % (path, e))
    if errors:
        for e in errors:
            sys.stderr.write("%s: %s\n" % (PROG, e))
        sys.exit(EXIT_BAD_INPUT)
    if checks:
        sec = Section(KIND_TEXT["check"], [os.path.basename(p) for p, _ in checks], "check")
        sec.figures.append(find_figure(
            "check_reports", "gpmx check: images and seconds until the first failure, per strategy",
            [f for _, f in checks],
            "All gpmx check --json reports given, merged: one bar per report, grouped by workload and seeded "
            "bug, one colour per strategy. A bar is the images started and the seconds taken until the first "
            "failing image was seen (the first failure's found_after_images and found_after_s). Hatched: no "
            "failure was found; the bar is every image checked and the whole run's time. Not normalized."))
        sections.append(sec)

    if sim_runs:
        sec = Section(KIND_TEXT["sim-run"], [os.path.basename(p) for p, _ in sim_runs], "sim-run")
        sec.figures.append(sim_runs_figure(sim_runs))
        sections.append(sec)

    # Distinct file names: figures of a kind given more than once are numbered in input order.
    seen = {}
    for sec in sections:
        if counts.get(sec.kind, 1) > 1:
            seen[sec.kind] = seen.get(sec.kind, 0) + 1
            for f in sec.figures:
                f.file = "%s-%d.png" % (f.kind, seen[sec.kind])

    plt, Patch = import_matplotlib()
    import warnings
    warnings.filterwarnings("ignore")
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as e:
        fail("%s: cannot create the directory: %s" % (args.out, e.strerror or e), EXIT_WRITE)

    md = ["# gpmx report", "",
          "Figures from the JSON that gpmx's benchmarks and checker wrote. Bars are normalized to the "
          "baseline named on each axis (the dashed line at 1.0), except the checker's figures, which show "
          "counts and seconds. A value that was not measured is marked \"missing\", never drawn as zero.", "",
          md_table(["input", "from"], [[s, "`%s`" % KIND_TEXT[sec.kind]] for sec in sections for s in sec.source]),
          ""]
    for sec in sections:
        md += ["## %s (%s)" % (KIND_TEXT[sec.kind], ", ".join(sec.source)), ""]
        for f in sec.figures:
            out = os.path.join(args.out, f.file)
            try:
                draw(f, out, plt, Patch)
            except OSError as e:
                fail("%s: cannot write: %s" % (out, e.strerror or e), EXIT_WRITE)
            w, h = SIZES[f.kind]
            print("%s: wrote %s (%dx%d)" % (PROG, out, int(round(w * DPI)), int(round(h * DPI))))
            md += ["![%s](%s)" % (f.title.replace("\n", " "), f.file), "", f.caption, "",
                   md_table(*f.table), ""]
        for title, headers, rows in sec.tables:
            md += ["%s:" % title, "", md_table(headers, rows), ""]
        for note in sec.notes:
            md += [note, ""]
    report = os.path.join(args.out, "report.md")
    try:
        with open(report, "w", encoding="utf-8") as f:
            f.write("\n".join(md))
    except OSError as e:
        fail("%s: cannot write: %s" % (report, e.strerror or e), EXIT_WRITE)
    print("%s: wrote %s" % (PROG, report))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(130)
