//! Lab 3's reference solution: each message is a buffer rented from a pool and written into;
//! when the sender drops it, it goes back to the pool, and the next line rents it again.

use std::io::Write as _;
use std::sync::{Arc, LazyLock};

use pool::{BufferPool, OwnedRentedBuf, PoolConfig};

pub use lab_03_pool::OrderLine;

static POOL: LazyLock<Arc<BufferPool<u8>>> = LazyLock::new(|| {
    Arc::new(BufferPool::new(
        PoolConfig::default().with_max_per_bucket(128),
    ))
});

pub type Message = OwnedRentedBuf<u8>;

pub fn encode(line: &OrderLine) -> Message {
    let total = line.unit_price_cents * u64::from(line.quantity);
    let mut message = Arc::clone(&POOL).rent_buf_owned(64 + line.item.len());
    let _ = writeln!(
        message,
        "{}|{}|{}|{}.{:02}|{}.{:02}",
        line.order_id,
        line.item,
        line.quantity,
        line.unit_price_cents / 100,
        line.unit_price_cents % 100,
        total / 100,
        total % 100
    );
    message
}
