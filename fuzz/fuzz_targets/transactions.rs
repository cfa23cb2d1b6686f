//! FIMI and CSV transaction files: `Transactions::read` on arbitrary bytes, with and without
//! a public item list, then itemsets of size 1–3 counted on transactions cut to at most 8
//! items (bounded work whatever the input).
#![no_main]

use disguise::apps::{TransactionFormat, Transactions};
use disguise_fuzz::{split_selector, write_input};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (selector, bytes) = split_selector(data);
    let format = if selector & 1 == 0 {
        TransactionFormat::Fimi
    } else {
        TransactionFormat::Csv {
            id_column: "tid".into(),
            item_column: "item".into(),
        }
    };
    let items: Vec<String> = ["1", "2", "3", "10", "a"].map(String::from).to_vec();
    let items = (selector & 2 != 0).then_some(items.as_slice());
    let path = write_input("transactions.dat", bytes);
    if let Ok(t) = Transactions::read(&path, &format, items) {
        let size = 1 + usize::from(selector >> 2) % 3;
        let max_length = size + usize::from(selector >> 4) % 6;
        let _ = t.count_itemsets(size, max_length);
    }
});
