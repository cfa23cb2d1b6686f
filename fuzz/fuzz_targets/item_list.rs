//! Public item lists (`itemsets --items`): `read_item_list` on arbitrary bytes, then used to
//! read a fixed FIMI file as the command does.
#![no_main]

use disguise::apps::{TransactionFormat, Transactions, read_item_list};
use disguise_fuzz::write_input;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = write_input("items.txt", data);
    if let Ok(items) = read_item_list(&path) {
        let fimi = write_input("fixed.dat", b"1 2 3\n2 3\n\n10 a 2\n");
        let _ = Transactions::read(&fimi, &TransactionFormat::Fimi, Some(&items));
    }
});
