//! Itemset counting on a retail-like transactions file, and the generator of that file.
//!
//! Write the file (FIMI format) for measuring the CLI with `/usr/bin/time -v`:
//! `cargo bench -p disguise --bench itemsets -- --write-retail /tmp/itemsets/retail.dat`
//!
//! Time reading and counting (sizes 1 to 3) in process:
//! `cargo bench -p disguise --bench itemsets`
//!
//! The file imitates FIMI `retail.dat` (Brijs et al., a Belgian supermarket), which is not in
//! the shared data: 88,162 transactions over 16,470 items, lengths geometric with mean ≈ 10.3
//! (cut at 76, the real file's longest), items drawn without repetition from a Zipf(1)
//! popularity over a fixed random relabelling of the ids (so the canonical item order is not
//! the popularity order). Deterministic: the same bytes on every run.

use disguise::SecureRng;
use disguise::apps::{DEFAULT_MAX_LENGTH, TransactionFormat, Transactions};
use rand_core::Rng;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

const TRANSACTIONS: usize = 88_162;
const ITEMS: usize = 16_470;
const MEAN_LENGTH: f64 = 10.3;
const MAX_LENGTH: usize = 76;

/// A uniform draw in [0, 1) with 53 random bits.
fn unit(rng: &mut SecureRng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// The retail-like file's text.
fn retail_like() -> String {
    let mut rng = SecureRng::insecure_from_seed(0x7e7a11);
    // Zipf(1) popularity by rank; rank r is item `label[r]`.
    let mut cumulative = Vec::with_capacity(ITEMS);
    let mut total = 0.0;
    for rank in 0..ITEMS {
        total += 1.0 / (rank + 1) as f64;
        cumulative.push(total);
    }
    let mut label: Vec<u32> = (0..ITEMS as u32).collect();
    for i in (1..ITEMS).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        label.swap(i, j);
    }
    let p = 1.0 / MEAN_LENGTH;
    let mut text = String::new();
    let mut row: Vec<u32> = Vec::new();
    for _ in 0..TRANSACTIONS {
        // Geometric length ≥ 1 with mean 1/p, by inversion.
        let length = (1.0 + ((1.0 - unit(&mut rng)).ln() / (1.0 - p).ln()).floor()) as usize;
        let length = length.min(MAX_LENGTH);
        row.clear();
        while row.len() < length {
            let u = unit(&mut rng) * total;
            let rank = cumulative.partition_point(|&c| c <= u).min(ITEMS - 1);
            let item = label[rank];
            if !row.contains(&item) {
                row.push(item);
            }
        }
        for (i, item) in row.iter().enumerate() {
            if i > 0 {
                text.push(' ');
            }
            write!(text, "{item}").expect("writing to a String");
        }
        text.push('\n');
    }
    text
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(at) = args.iter().position(|a| a == "--write-retail") {
        let path = PathBuf::from(args.get(at + 1).expect("--write-retail needs a path"));
        let text = retail_like();
        std::fs::write(&path, &text).expect("cannot write the retail-like file");
        eprintln!("wrote {} ({} bytes)", path.display(), text.len());
        return;
    }
    let dir = std::env::temp_dir().join(format!("disguise-bench-itemsets-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("cannot create a temporary folder");
    let path = dir.join("retail.dat");
    std::fs::write(&path, retail_like()).expect("cannot write the retail-like file");
    let started = Instant::now();
    let t = Transactions::read(&path, &TransactionFormat::Fimi, None).expect("readable");
    println!("| step | wall time | distinct itemsets |");
    println!("|---|---:|---:|");
    println!("| read | {:.3} s | |", started.elapsed().as_secs_f64());
    for size in 1..=3 {
        let started = Instant::now();
        let counts = t
            .count_itemsets(size, DEFAULT_MAX_LENGTH)
            .expect("countable");
        println!(
            "| count size {size} | {:.3} s | {} |",
            started.elapsed().as_secs_f64(),
            counts.len()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
