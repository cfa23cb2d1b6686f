//! Constraints: matroid axioms checked by brute force on random small instances, the graphic
//! matroid against an independent acyclicity test, p-extendibility of intersections, file
//! parsing and its errors, and the edge cases of the issue (k = 0, k ≥ |V|, empty groups,
//! graphs with cycles).

use disguise::Error;
use disguise::SecureRng;
use disguise::constraint::{
    Cardinality, Graphic, Independence, Intersection, Matroid, Partition, Uniform,
};
use disguise::noise::bernoulli::uniform_below;

fn below(rng: &mut SecureRng, n: usize) -> usize {
    uniform_below(rng, n as u64) as usize
}

/// All subsets of 0..n as sorted element lists (n ≤ 12).
fn subsets(n: usize) -> Vec<Vec<usize>> {
    (0u32..1 << n)
        .map(|mask| (0..n).filter(|&i| mask >> i & 1 == 1).collect())
        .collect()
}

/// The independent sets of `c`, as bit masks, via `is_independent`.
fn independent_masks<C: Independence>(c: &C) -> Vec<bool> {
    let n = c.ground_size();
    subsets(n).iter().map(|s| c.is_independent(s)).collect()
}

/// Brute-force check that `c` is a matroid whose rank is `c.rank_bound()`: non-empty,
/// downward closed, and the exchange axiom.
fn assert_matroid<C: Independence>(c: &C, what: &str) {
    let n = c.ground_size();
    let ind = independent_masks(c);
    assert!(ind[0], "{what}: the empty set must be independent");
    let mut rank = 0;
    for a in 0u32..1 << n {
        if !ind[a as usize] {
            continue;
        }
        rank = rank.max(a.count_ones() as usize);
        // Downward closed: dropping any one element keeps it independent.
        for v in 0..n {
            if a >> v & 1 == 1 {
                assert!(ind[(a & !(1 << v)) as usize], "{what}: not downward closed");
            }
        }
        // Exchange: for every larger independent B, some x ∈ B \ A extends A.
        for b in 0u32..1 << n {
            if ind[b as usize] && b.count_ones() > a.count_ones() {
                let extendable = (0..n)
                    .filter(|&x| b >> x & 1 == 1 && a >> x & 1 == 0)
                    .any(|x| ind[(a | 1 << x) as usize]);
                assert!(
                    extendable,
                    "{what}: exchange axiom fails for A={a:b} B={b:b}"
                );
            }
        }
    }
    assert_eq!(
        c.rank_bound(),
        rank,
        "{what}: rank bound must be the exact rank"
    );
    assert_eq!(c.extendibility(), 1);
}

/// Brute-force check of p-extendibility (Mestre 2006): for all S ⊂ T independent and v ∉ T
/// with S ∪ {v} independent, some Z ⊆ T \ S with |Z| ≤ p has (T \ Z) ∪ {v} independent.
/// Returns the largest |Z| that was needed (the tightest p on this instance).
fn check_p_extendible<C: Independence>(c: &C, p: usize) -> usize {
    let n = c.ground_size();
    let ind = independent_masks(c);
    let mut needed = 0;
    for t in 0u32..1 << n {
        if !ind[t as usize] {
            continue;
        }
        // All S ⊂ T (submasks).
        let mut s = t;
        loop {
            for v in 0..n {
                if t >> v & 1 == 1 || !ind[(s | 1 << v) as usize] {
                    continue;
                }
                let diff = t & !s;
                // Smallest Z ⊆ T \ S making (T \ Z) + v independent.
                let mut best = usize::MAX;
                let mut z = diff;
                loop {
                    if ind[((t & !z) | 1 << v) as usize] {
                        best = best.min(z.count_ones() as usize);
                    }
                    if z == 0 {
                        break;
                    }
                    z = (z - 1) & diff;
                }
                assert!(best <= p, "not {p}-extendible: T={t:b} S={s:b} v={v}");
                needed = needed.max(best);
            }
            if s == 0 {
                break;
            }
            s = (s - 1) & t;
        }
    }
    needed
}

/// Acyclicity by an independent method: a set of edges is a forest iff
/// |edges| = |vertices| − |components| of the subgraph it spans (components by DFS).
fn is_forest(vertices: usize, edges: &[(usize, usize)]) -> bool {
    let mut adj = vec![Vec::new(); vertices];
    for &(u, v) in edges {
        adj[u].push(v);
        adj[v].push(u);
    }
    let mut seen = vec![false; vertices];
    let mut components = 0;
    for start in 0..vertices {
        if seen[start] {
            continue;
        }
        components += 1;
        let mut stack = vec![start];
        seen[start] = true;
        while let Some(x) = stack.pop() {
            for &y in &adj[x] {
                if !seen[y] {
                    seen[y] = true;
                    stack.push(y);
                }
            }
        }
    }
    edges.len() == vertices - components
}

fn random_graph(rng: &mut SecureRng, vertices: usize, edges: usize) -> Vec<(usize, usize)> {
    // Self-loops and parallel edges included on purpose.
    (0..edges)
        .map(|_| (below(rng, vertices), below(rng, vertices)))
        .collect()
}

fn random_partition(rng: &mut SecureRng, n: usize) -> Partition {
    loop {
        let groups = 1 + below(rng, 4);
        let group_of: Vec<usize> = (0..n).map(|_| below(rng, groups)).collect();
        let capacities: Vec<usize> = (0..groups).map(|_| below(rng, 3)).collect();
        // Rejected (rank 0) draws are retried; that rejection is itself tested below.
        if let Ok(p) = Partition::new(group_of, capacities) {
            return p;
        }
    }
}

#[test]
fn cardinality_edge_cases_k_zero_and_k_at_least_n() {
    let zero = Cardinality::new(4, 0);
    assert!(!zero.can_add(&zero.empty(), 0));
    assert_eq!(zero.rank_bound(), 0);
    assert!(zero.is_independent(&[]));
    assert!(!zero.is_independent(&[1]));

    for k in [4, 5, 100] {
        let all = Cardinality::new(4, k);
        assert_eq!(all.rank_bound(), 4, "k = {k} ≥ |V| clamps the rank to |V|");
        assert!(all.is_independent(&[3, 0, 2, 1]));
        assert!(!all.is_independent(&[0, 0]), "duplicates are not a set");
        assert!(!all.is_independent(&[4]), "unknown ids are never feasible");
    }
    for n in 0..6 {
        for k in 0..7 {
            assert_matroid(&Cardinality::new(n, k), "cardinality");
        }
    }
}

#[test]
fn uniform_matroid_with_loops_is_a_matroid_and_rejects_unknown_ids() {
    let u = Uniform::on(6, &[0, 2, 5], 2).unwrap();
    assert_matroid(&u, "uniform on a shortlist");
    assert_eq!(u.rank_bound(), 2);
    assert!(!u.is_independent(&[1]));
    assert!(u.is_independent(&[5, 0]));
    assert_matroid(&Uniform::new(5, 3), "uniform");
    assert!(matches!(
        Uniform::on(3, &[3], 1),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(Uniform::on(3, &[1, 1], 1).is_err());
}

#[test]
fn random_partition_matroids_satisfy_the_axioms() {
    let mut rng = SecureRng::insecure_from_seed(11);
    for _ in 0..60 {
        let n = 1 + below(&mut rng, 8);
        let p = random_partition(&mut rng, n);
        assert_matroid(&p, "partition");
        // Feasibility is exactly "at most capacity per group".
        for set in subsets(n) {
            let within = (0..p.groups()).all(|g| {
                set.iter().filter(|&&v| p.group_of(v) == Some(g)).count() <= p.capacity(g).unwrap()
            });
            assert_eq!(p.is_independent(&set), within);
        }
    }
}

#[test]
fn partition_with_empty_groups_counts_only_real_elements_in_the_rank() {
    // Group 1 is empty with capacity 5: it must not inflate the rank (the number of
    // privacy-consuming rounds).
    let p = Partition::new(vec![0, 0, 2, 2, 2], vec![1, 5, 2]).unwrap();
    assert_eq!(p.rank_bound(), 3);
    assert_matroid(&p, "partition with an empty group");
    // A capacity-0 group excludes its elements but is fine while others can be chosen.
    let q = Partition::new(vec![0, 1, 1], vec![0, 1]).unwrap();
    assert!(!q.is_independent(&[0]));
    assert_eq!(q.rank_bound(), 1);
}

#[test]
fn partition_that_allows_nothing_is_an_error() {
    let err = Partition::new(vec![0, 0, 1], vec![0, 0]).unwrap_err();
    assert!(err.to_string().contains("capacity 0"), "{err}");
    // Positive capacity only on an empty group still allows nothing.
    assert!(Partition::new(vec![0, 0], vec![0, 3]).is_err());
    // A group index without a capacity.
    assert!(Partition::new(vec![0, 2], vec![1, 1]).is_err());
}

const GOOD: &str = "\
# neighbourhoods
element,group
0,north
1,north
2,south
3,south
4,south

group,capacity
north,1
south,2
empty,4
";

#[test]
fn partition_file_parses_in_either_table_order() {
    let p = Partition::parse(GOOD, "groups.csv", 5).unwrap();
    assert_eq!(p.groups(), 3);
    assert_eq!(p.group_name(p.group_of(3).unwrap()), Some("south"));
    assert_eq!(p.capacity(0), Some(1));
    assert_eq!(p.rank_bound(), 3);
    assert!(p.is_independent(&[0, 2, 4]));
    assert!(!p.is_independent(&[0, 1]));
    assert!(!p.is_independent(&[2, 3, 4]));
}

#[test]
fn partition_file_errors_name_file_and_line() {
    let cases: &[(&str, &str)] = &[
        // (text, expected prefix + fragment)
        ("0,a\n", "f.csv:1:"),
        (
            "group,capacity\na,1\nelement,group\n0,a\n1,a\n9,a\n",
            "f.csv:6:",
        ),
        (
            "group,capacity\na,1\nelement,group\n0,a\n1,a\n2,a\n1,a\n",
            "f.csv:7:",
        ),
        ("group,capacity\na,x\n", "f.csv:2:"),
        ("group,capacity\na,1\na,2\n", "f.csv:3:"),
        (
            "group,capacity\na,1\nelement,group\n0,a\n1,b\n2,a\n",
            "f.csv:5:",
        ),
        ("group,capacity\na,1,3\n", "f.csv:2:"),
        ("group,capacity\na,-1\n", "f.csv:2:"),
        ("group,capacity\na,1\nelement,group\nzero,a\n", "f.csv:4:"),
    ];
    for (text, prefix) in cases {
        let err = Partition::parse(text, "f.csv", 3).unwrap_err();
        assert!(
            matches!(err, Error::Parse { .. }) && err.to_string().starts_with(prefix),
            "{text:?}: expected {prefix}, got {err}"
        );
    }
    // An unassigned element and a constraint that allows nothing name the file.
    let unassigned = Partition::parse("group,capacity\na,1\nelement,group\n0,a\n", "f.csv", 2);
    let msg = unassigned.unwrap_err().to_string();
    assert!(
        msg.starts_with("f.csv:") && msg.contains("element 1"),
        "{msg}"
    );
    let nothing = Partition::parse("group,capacity\na,0\nelement,group\n0,a\n", "f.csv", 1);
    assert!(nothing.unwrap_err().to_string().contains("capacity 0"));
}

#[test]
fn partition_and_graphic_load_from_files() {
    let dir = std::env::temp_dir().join(format!("disguise-constraints-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let groups = dir.join("groups.csv");
    std::fs::write(&groups, GOOD).unwrap();
    let p = Partition::from_file(&groups, 5).unwrap();
    assert_eq!(p.rank_bound(), 3);
    let spec = format!("partition:{}", groups.display());
    assert_eq!(Matroid::from_spec(&spec, 5).unwrap(), Matroid::Partition(p));

    let edges = dir.join("edges.csv");
    std::fs::write(&edges, "u,v\n0,1\n1,2\n# a comment\n2,0\n2,3\n").unwrap();
    let g = Graphic::from_file(&edges).unwrap();
    assert_eq!((g.vertices(), g.ground_size(), g.rank_bound()), (4, 4, 3));
    let spec = format!("graphic:{}", edges.display());
    assert!(Matroid::from_spec(&spec, 4).is_ok());
    assert!(
        Matroid::from_spec(&spec, 5).is_err(),
        "edge count ≠ ground size"
    );

    let missing = dir.join("missing.csv");
    let err = Partition::from_file(&missing, 3).unwrap_err();
    assert!(matches!(err, Error::Io { .. }) && err.to_string().contains("missing.csv"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn graphic_parse_errors_name_file_and_line() {
    let err = Graphic::parse("u,v\n0,1\n1\n", "g.csv").unwrap_err();
    assert!(err.to_string().starts_with("g.csv:3:"), "{err}");
    let err = Graphic::parse("0,1\n1,x\n", "g.csv").unwrap_err();
    assert!(err.to_string().starts_with("g.csv:2:"), "{err}");
    assert!(
        Graphic::new(2, vec![(0, 2)]).is_err(),
        "vertex outside 0..2"
    );
}

#[test]
fn graphic_matroid_on_graphs_with_cycles_matches_an_independent_forest_test() {
    let mut rng = SecureRng::insecure_from_seed(12);
    for _ in 0..80 {
        let vertices = 1 + below(&mut rng, 5);
        let m = below(&mut rng, 9);
        let edges = random_graph(&mut rng, vertices, m);
        let g = Graphic::new(vertices, edges.clone()).unwrap();
        assert_matroid(&g, "graphic");
        for set in subsets(m) {
            let chosen: Vec<(usize, usize)> = set.iter().map(|&e| edges[e]).collect();
            assert_eq!(
                g.is_independent(&set),
                is_forest(vertices, &chosen),
                "edges {chosen:?} of {edges:?}"
            );
        }
        // Incremental states along a random insertion order agree with from-scratch checks.
        let mut state = g.empty();
        let mut chosen = Vec::new();
        for e in 0..m {
            let ok = g.can_add(&state, e);
            chosen.push(e);
            assert_eq!(ok, g.is_independent(&chosen));
            if ok {
                g.insert(&mut state, e);
            } else {
                chosen.pop();
            }
        }
        assert_eq!(chosen.len(), g.rank_bound(), "a maximal forest spans");
    }
}

#[test]
fn self_loops_are_never_feasible() {
    let g = Graphic::new(2, vec![(0, 0), (0, 1), (1, 1)]).unwrap();
    assert!(!g.is_independent(&[0]));
    assert!(g.is_independent(&[1]));
    assert_eq!(g.rank_bound(), 1);
}

#[test]
fn intersections_of_p_matroids_are_p_extendible() {
    let mut rng = SecureRng::insecure_from_seed(13);
    for _ in 0..40 {
        let n = 2 + below(&mut rng, 5);
        let p = 1 + below(&mut rng, 3);
        let mut parts: Vec<Matroid> = Vec::new();
        for _ in 0..p {
            parts.push(match below(&mut rng, 3) {
                0 => random_partition(&mut rng, n).into(),
                1 => {
                    let vertices = 1 + below(&mut rng, 4);
                    Graphic::new(vertices, random_graph(&mut rng, vertices, n))
                        .unwrap()
                        .into()
                }
                _ => Cardinality::new(n, 1 + below(&mut rng, n)).into(),
            });
        }
        let both = Intersection::new(parts.clone()).unwrap();
        assert_eq!(both.extendibility(), p);
        check_p_extendible(&both, p);
        // Feasible iff feasible in every part; rank bound is an upper bound.
        let mut largest = 0;
        for set in subsets(n) {
            let all = parts.iter().all(|m| m.is_independent(&set));
            assert_eq!(both.is_independent(&set), all);
            if all {
                largest = largest.max(set.len());
            }
        }
        assert!(largest <= both.rank_bound());
    }
}

#[test]
fn intersection_of_two_partitions_can_need_two_removals() {
    // Bipartite matching on the path a–b–c–d viewed as edges {0:(a,b), 1:(b,c), 2:(c,d)}:
    // vertex-capacity partitions on the left and on the right end of each edge.
    let left = Partition::new(vec![0, 1, 1], vec![1, 1]).unwrap(); // edges 1, 2 share c
    let right = Partition::new(vec![0, 0, 1], vec![1, 1]).unwrap(); // edges 0, 1 share b
    let both = Intersection::new(vec![left.into(), right.into()]).unwrap();
    // T = {0, 2}, S = ∅, v = 1: adding 1 needs both 0 and 2 removed.
    assert!(both.is_independent(&[0, 2]) && both.is_independent(&[1]));
    assert_eq!(check_p_extendible(&both, 2), 2);
}

#[test]
fn intersection_and_spec_errors() {
    assert!(Intersection::new(vec![]).is_err());
    let err = Intersection::new(vec![
        Cardinality::new(3, 1).into(),
        Cardinality::new(4, 1).into(),
    ])
    .unwrap_err();
    assert!(err.to_string().contains("ground sizes differ"), "{err}");
    assert_eq!(
        Matroid::from_spec("cardinality:2", 5).unwrap(),
        Matroid::Cardinality(Cardinality::new(5, 2))
    );
    assert_eq!(
        Matroid::from_spec("uniform:7", 5).unwrap().rank_bound(),
        5,
        "k ≥ |V| clamps"
    );
    for bad in ["cardinality", "cardinality:-1", "cardinality:x", "banana:1"] {
        assert!(Matroid::from_spec(bad, 5).is_err(), "{bad}");
    }
    let single = Intersection::new(vec![Cardinality::new(3, 2).into()]).unwrap();
    assert_eq!((single.extendibility(), single.name()), (1, "cardinality"));
}
