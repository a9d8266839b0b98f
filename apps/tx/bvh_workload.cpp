// BVH construction and reduction as a workload (`gpmx run tx-bvh`): B1 and
// R1 are the default 100,000 faces, B2 and R2 -p faces=187854. Launch 0 is
// the construction (B), launch 1 the reduction (R); the log is applied and
// truncated after each.
#include <fmt/format.h>

#include <stdexcept>

#include "gpmx/exec/kernel_memory.hpp"
#include "tx/bvh_input.hpp"
#include "tx/tx_workload.hpp"

namespace gpmx::apps::tx {
namespace {

constexpr std::uint64_t max_faces = std::uint64_t(1) << 24;

std::uint32_t faces_of(const params& p) {
  const auto it = p.find("faces");
  if (it == p.end() || it->second < 2 || it->second > max_faces)
    throw config_error(fmt::format("tx-bvh: faces={} is not in [2, 2^24]", it == p.end() ? 0 : it->second));
  return std::uint32_t(it->second);
}

std::uint32_t words_of(const params& p) { return std::uint32_t(bvh::tree_layout{faces_of(p)}.words()); }

// The grid and log size the input needs, where the parameters leave them
// to it (0): a committer per leaf, and a log stream per committer that
// holds the longest climb (the tree's height + 1 transactions).
params resolved(const params& p, const bvh::reference_tree& ref) {
  params out = p;
  const std::uint32_t faces = faces_of(p);
  const std::uint64_t threads = p.at("threads");
  if (out.at("blocks") == 0) out["blocks"] = (faces + threads - 1) / std::max<std::uint64_t>(threads, 1);
  if (out.at("per_thread") == 0) out["per_thread"] = std::max<std::uint32_t>(3, ref.height + 1);
  if (out.at("batches") != 2)
    throw config_error(fmt::format("tx-bvh: batches={} is not 2 (the construction, then the reduction)", out.at("batches")));
  if (out.at("blocks") * threads < faces)
    throw config_error(fmt::format("tx-bvh: blocks={} x threads={} committers are fewer than the {} leaves",
                                   out.at("blocks"), threads, faces));
  if (out.at("per_thread") < std::max<std::uint32_t>(3, ref.height + 1))
    throw config_error(fmt::format("tx-bvh: per_thread={} is below the {} transactions the longest climb needs",
                                   out.at("per_thread"), ref.height + 1));
  return out;
}

bvh::box box_at(std::span<const std::uint32_t> home, const bvh::tree_layout& t, std::uint32_t i) {
  bvh::box b;
  for (int d = 0; d < 3; ++d) {
    b.lo[d] = bvh::bits_float(home[t.box(i) + d]);
    b.hi[d] = bvh::bits_float(home[t.box(i) + 3 + d]);
  }
  return b;
}

bool same(const bvh::box& a, const bvh::box& b) {
  for (int d = 0; d < 3; ++d)
    if (bvh::float_bits(a.lo[d]) != bvh::float_bits(b.lo[d]) || bvh::float_bits(a.hi[d]) != bvh::float_bits(b.hi[d]))
      return false;
  return true;
}

class bvh_workload final : public workload {
 public:
  std::string_view name() const override { return "tx-bvh"; }
  std::string_view summary() const override {
    return "BVH construction from Morton codes, then its bottom-up box reduction, as durable GPU transactions "
           "(helper-warp paper B1/R1, B2/R2)";
  }
  std::vector<param_spec> parameters() const override {
    return with_tx_parameters(
        {{"faces", 100000, "mesh faces, one leaf each (B1/R1: 100,000; B2/R2: 187,854)"},
         {"blocks", 0, "thread blocks; 0: enough for a committer per leaf"},
         {"per_thread", 0, "most transactions a committer runs in a launch (its log stream); 0: the tree's height + 1"},
         {"batches", 2, "launches: must be 2 (the construction, then the reduction)"}},
        0);
  }
  params small_params() const override {
    return resolve_params(*this, {{"faces", 300}, {"threads", 64}, {"ring", 64}});
  }
  std::vector<seeded_bug> seeded_bugs() const override { return tx_seeded_bugs(); }

  run_report run(const env& e, const params& given, style st) override {
    (void)requested_bug(*this, e, st);
    const std::uint32_t faces = faces_of(given);
    const bvh::mesh_input mesh = bvh::make_mesh(faces, given.at("seed"));
    const bvh::reference_tree ref = bvh::build_reference(mesh);
    const params p = resolved(given, ref);  // checked before create_heap empties the directory
    const bvh::tree_layout tree{faces};
    opened_heap h = create_heap(e, *this, p, st, std::uint32_t(tree.words()), bvh::body::max_writes,
                                [&](std::span<std::uint32_t> home) {
                                  for (std::uint32_t n = 0; n < tree.nodes(); ++n) home[tree.parent(n)] = bvh::no_node;
                                });
    const tx_shape& s = h.shape;
    const kernel_vector<std::uint32_t> codes(mesh.codes.begin(), mesh.codes.end());
    const kernel_vector<bvh::box> boxes(mesh.leaf_boxes.begin(), mesh.leaf_boxes.end());
    kernel_vector<std::uint32_t> cursor(s.committer_count(), bvh::at_leaf), proposal(s.committer_count(), bvh::no_node);
    const bvh::body body{tree, global_span<const std::uint32_t>(codes.data(), codes.size()),
                         global_span<const bvh::box>(boxes.data(), boxes.size()), cursor.data(), proposal.data(),
                         s.per_thread};
    const tx_stats stats = run_batches(e, h.heap, s, st, body, faults_of(e), e.has_bug(bug_truncate_first));
    for (std::uint32_t c = 0; c < faces; ++c)
      if (cursor[c] != bvh::no_node)
        throw std::logic_error(fmt::format("tx-bvh: committer {} stopped climbing at node {} after {} transactions", c,
                                           cursor[c], s.per_thread));
    run_report r = report_of(stats, h, "node updates");
    r.figures.emplace_back("construction_seconds", stats.launch_seconds.at(0));
    r.figures.emplace_back("reduction_seconds", stats.launch_seconds.at(1));
    return r;
  }

  recover_report recover(const env& e) override {
    opened_heap h = open_heap(e, *this, words_of, bvh::body::max_writes);
    return recover_heap(h.heap);
  }

  verify_report verify(const env& e) override {
    opened_heap h = open_heap(e, *this, words_of, bvh::body::max_writes);
    verify_report v = check_promises(h.heap);
    if (!v.ok) return v;
    v.ok = false;
    const std::uint32_t faces = faces_of(h.meta.p);
    const bvh::mesh_input mesh = bvh::make_mesh(faces, h.meta.p.at("seed"));
    const bvh::reference_tree ref = bvh::build_reference(mesh);
    const bvh::tree_layout t{faces};
    const auto home = h.heap.home();
    const std::uint64_t construction = 3 * std::uint64_t(t.internal());
    const bool built = h.heap.applied_upto() >= construction;
    // The structure: every link written is the reference's; all of them once built.
    for (std::uint32_t i = 0; i < t.internal(); ++i) {
      const std::uint32_t l = home[t.left(i)], r = home[t.right(i)];
      if ((l != 0 || built) && (l != ref.left[i] || r != ref.right[i]))
        return fail(v, fmt::format("internal node {} has children {} and {}, the reference {} and {}", i, l, r,
                                   ref.left[i], ref.right[i]));
    }
    for (std::uint32_t n = 0; n < t.nodes(); ++n) {
      const std::uint32_t p = home[t.parent(n)];
      if ((p != bvh::no_node || built) && p != ref.parent[n])
        return fail(v, fmt::format("node {} has parent {}, the reference {}", n, p, ref.parent[n]));
    }
    // The boxes: each completed node's is the union of its children's,
    // which are complete; no other node has one.
    const auto complete = [&](std::uint32_t node) { return t.is_leaf(node) || home[t.flag(node)] == bvh::flag_done; };
    const auto box_of = [&](std::uint32_t node) {
      return t.is_leaf(node) ? mesh.leaf_boxes[node - t.internal()] : box_at(home, t, node);
    };
    std::uint64_t done = 0;
    for (std::uint32_t i = 0; i < t.internal(); ++i) {
      const std::uint32_t f = home[t.flag(i)];
      if (f > bvh::flag_done) return fail(v, fmt::format("internal node {} has flag {}", i, f));
      if (f != bvh::flag_done) {
        for (std::uint32_t w = 0; w < bvh::box_words; ++w)
          if (home[t.box(i) + w] != 0)
            return fail(v, fmt::format("internal node {} is not complete (flag {}) but holds a box", i, f));
        continue;
      }
      if (!built) return fail(v, fmt::format("internal node {} has a box before the tree is built", i));
      if (!complete(ref.left[i]) || !complete(ref.right[i]))
        return fail(v, fmt::format("internal node {} is complete but a child of it ({} or {}) is not", i, ref.left[i],
                                   ref.right[i]));
      if (!same(box_of(i), bvh::unite(box_of(ref.left[i]), box_of(ref.right[i]))))
        return fail(v, fmt::format("internal node {}'s box is not the union of its children's", i));
      if (!same(box_of(i), ref.boxes[i])) return fail(v, fmt::format("internal node {}'s box differs from the reference", i));
      ++done;
    }
    const tx_shape& s = h.shape;
    const bool whole = h.heap.applied_upto() == h.heap.committed_through() && h.heap.committed_through() > construction;
    if (whole && done != t.internal())
      return fail(v, fmt::format("the run finished but only {} of {} internal nodes have their box", done, t.internal()));
    v.ok = true;
    v.checked = t.nodes();
    v.detail = done == t.internal()
                   ? fmt::format("the tree over {} leaves matches the reference; every node's box is the union of its "
                                 "children's",
                                 faces)
                   : fmt::format("{} of at most {} construction and reduction transactions applied (a prefix): "
                                 "{} of {} boxes done, each the union of its children's",
                                 h.heap.applied_upto(), std::uint64_t(s.committer_count()) * s.per_thread * 2, done,
                                 t.internal());
    return v;
  }
};

}  // namespace

std::unique_ptr<workload> make_tx_bvh_workload() { return std::make_unique<bvh_workload>(); }

}  // namespace gpmx::apps::tx
