//! Lab 3 (chapter 3): order lines encoded into messages, without an allocation per line.
//!
//! `encode` turns an order line into the message a server sends for it. The message is handed
//! over: the grader keeps up to 64 of them in flight (as a socket writer's queue would) and drops
//! each when it is "sent", so one buffer you own and pass down cannot be reused here — the
//! message outlives the call. Today every line allocates a new `String`.
//!
//! Make `encode` allocate nothing per line once warm, and within the instruction budget.
//! You may change the type `Message` (it must be `AsRef<[u8]> + Send + 'static`). Grade it with
//! `cargo xtask lab 3`.

/// One order line.
#[derive(Debug, Clone)]
pub struct OrderLine {
    pub order_id: u64,
    pub item: String,
    pub quantity: u32,
    pub unit_price_cents: u64,
}

/// The encoded message, handed to the sender.
pub type Message = Vec<u8>;

/// `order_id|item|quantity|unit price|line total\n`, prices in cents written as `12.34`.
pub fn encode(line: &OrderLine) -> Message {
    let total = line.unit_price_cents * u64::from(line.quantity);
    format!(
        "{}|{}|{}|{}.{:02}|{}.{:02}\n",
        line.order_id,
        line.item,
        line.quantity,
        line.unit_price_cents / 100,
        line.unit_price_cents % 100,
        total / 100,
        total % 100
    )
    .into_bytes()
}
