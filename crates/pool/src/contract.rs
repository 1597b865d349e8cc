//! The pool's contract, checked by the compiler.
//!
//! .NET's `ArrayPool<T>` asks its callers to give a buffer back once, never to touch it
//! afterwards and never to give back what it did not lend, and checks none of it. What its
//! shared pool's `Return` does check is the array itself (dotnet/runtime's
//! `SharedArrayPool.cs`): `null` throws `ArgumentNullException`; an empty array, or one longer
//! than the largest bucket, is silently not kept; an array whose length is within the buckets
//! but not a bucket's exact size throws `ArgumentException` (after clearing it, if the caller
//! asked for that); and any array of a bucket's exact length is kept, lent by the pool or not.
//! Here each rule is a compile error. Every rule below has a `compile_fail` example **and** a compiling twin that differs
//! only in obeying the rule: stable rustdoc does not check *which* error a `compile_fail`
//! example produces, so without the twin a typo would pass as a proof. Each example also names
//! its error code, which nightly rustdoc does check: CI runs these doctests on nightly as well
//! (`cargo +nightly test --doc -p hotpath-pool`).
//!
//! The chapter's table of the contract (P5) names each rule by its section here. What is left
//! to run time is measured in the chapter (`docs/03-pool.md`, P4, and its appendix, P5–P9): stale data under [`ClearPolicy::Never`](crate::ClearPolicy::Never), buffers kept for good — with
//! `mem::forget`, `Box::leak`, a `ManuallyDrop`, or a guard parked in a long-lived structure
//! (all safe: the pool allocates a new one) — returns beyond a bucket's bound (freed and
//! counted), and the memory the pool retains.
//!
//! # 1. Give back twice
//! Giving back is dropping the guard, and a value is dropped once: the second `drop` is a use
//! of a moved value (E0382).
//! ```compile_fail,E0382
//! let pool = hotpath_pool::BufferPool::<u8>::new(hotpath_pool::PoolConfig::default());
//! let buf = pool.rent(64);
//! drop(buf);
//! drop(buf);
//! ```
//! The twin, giving back once:
//! ```
//! let pool = hotpath_pool::BufferPool::<u8>::new(hotpath_pool::PoolConfig::default());
//! let buf = pool.rent(64);
//! drop(buf);
//! ```
//!
//! # 2. Use after giving back
//! Writing through the guard after it was dropped is a use of a moved value (E0382).
//! ```compile_fail,E0382
//! let pool = hotpath_pool::BufferPool::<u8>::new(hotpath_pool::PoolConfig::default());
//! let mut buf = pool.rent(64);
//! drop(buf);
//! buf[0] = 99;
//! ```
//! The twin writes first:
//! ```
//! let pool = hotpath_pool::BufferPool::<u8>::new(hotpath_pool::PoolConfig::default());
//! let mut buf = pool.rent(64);
//! buf[0] = 99;
//! drop(buf);
//! ```
//! Giving back with clearing, [`Rented::give_back_cleared`](crate::Rented::give_back_cleared),
//! takes the guard by value too, so a write after it is the same error (E0382).
//! ```compile_fail,E0382
//! let pool = hotpath_pool::BufferPool::<u8>::new(hotpath_pool::PoolConfig::default());
//! let mut buf = pool.rent(64);
//! buf.give_back_cleared();
//! buf[0] = 99;
//! ```
//! The twin writes the secret first:
//! ```
//! let pool = hotpath_pool::BufferPool::<u8>::new(hotpath_pool::PoolConfig::default());
//! let mut buf = pool.rent(64);
//! buf[0] = 99;
//! buf.give_back_cleared();
//! ```
//!
//! # 3. A slice that outlives its guard
//! Keeping a view of the buffer after the guard is gone does not compile either: the slice
//! borrows the guard (E0597).
//! ```compile_fail,E0597
//! let pool = hotpath_pool::BufferPool::<u8>::new(hotpath_pool::PoolConfig::default());
//! let view: &[u8] = {
//!     let buf = pool.rent(64);
//!     &buf[..]
//! };
//! assert_eq!(view.len(), 64);
//! ```
//! The twin copies what it needs out before the guard goes:
//! ```
//! let pool = hotpath_pool::BufferPool::<u8>::new(hotpath_pool::PoolConfig::default());
//! let copy: Vec<u8> = {
//!     let buf = pool.rent(64);
//!     buf[..].to_vec()
//! };
//! assert_eq!(copy.len(), 64);
//! ```
//!
//! # 4. Dropping the pool while something is rented
//! The guard borrows its pool, so the pool cannot be dropped (or moved) while a buffer is out
//! (E0505).
//! ```compile_fail,E0505
//! let pool = hotpath_pool::BufferPool::<u8>::new(hotpath_pool::PoolConfig::default());
//! let buf = pool.rent(64);
//! drop(pool);
//! assert_eq!(buf.len(), 64);
//! ```
//! The twin gives the buffer back first:
//! ```
//! let pool = hotpath_pool::BufferPool::<u8>::new(hotpath_pool::PoolConfig::default());
//! let buf = pool.rent(64);
//! assert_eq!(buf.len(), 64);
//! drop(buf);
//! drop(pool);
//! ```
//!
//! # 5. Giving back a buffer the pool never lent
//! There is no "return" method taking a buffer: the only way to give one back is to drop a
//! [`Rented`](crate::Rented), and only the pool can make one — its fields are private
//! (E0451), so a foreign buffer cannot be dressed up as a rented one. A guard also always goes
//! back to the pool that lent it, never to another.
//! ```compile_fail,E0451
//! let pool = hotpath_pool::BufferPool::<u8>::new(hotpath_pool::PoolConfig::default());
//! let foreign: Box<[u8]> = vec![0u8; 64].into_boxed_slice();
//! // Whatever would stand for the buffer (`todo!()` takes any type), the fields are private.
//! let fake: hotpath_pool::Rented<'_, u8> =
//!     hotpath_pool::Rented { buf: todo!("{}", foreign.len()), pool: &pool };
//! drop(fake);
//! ```
//! The twin gets its guard from the pool:
//! ```
//! let pool = hotpath_pool::BufferPool::<u8>::new(hotpath_pool::PoolConfig::default());
//! let real: hotpath_pool::Rented<'_, u8> = pool.rent(64);
//! drop(real);
//! assert_eq!(pool.stats().returns, 1);
//! ```
//!
//! # 6. A pool of values that cannot cross threads
//! Buffers move between threads — a guard dropped on another thread, an exiting thread's cache
//! handed to the shared stacks, the caches of live threads freed by the thread that drops the
//! pool — so the element type must be `Send`, and the pool is then `Send + Sync` by the
//! compiler's own rules; nothing in the crate asserts it by hand. A pool of a type that is not
//! `Send` does not compile (E0277).
//! ```compile_fail,E0277
//! #[derive(Clone, Copy, Default)]
//! struct NotSend(std::marker::PhantomData<*const u8>);
//! fn needs_sync<P: Sync>(_: &P) {}
//! let pool = hotpath_pool::BufferPool::<NotSend>::new(hotpath_pool::PoolConfig::default());
//! needs_sync(&pool);
//! ```
//! The twin, with a `Send` element:
//! ```
//! #[derive(Clone, Copy, Default)]
//! struct IsSend(std::marker::PhantomData<u8>);
//! fn needs_sync<P: Sync>(_: &P) {}
//! let pool = hotpath_pool::BufferPool::<IsSend>::new(hotpath_pool::PoolConfig::default());
//! needs_sync(&pool);
//! ```
//!
//! # 7. A borrowed buffer sent to a thread that may outlive its pool
//! `std::thread::spawn` takes only `'static` closures, and a [`Rented`](crate::Rented) borrows
//! its pool: moving one into a spawned thread does not compile, since the thread could outlive
//! the pool (E0597).
//! ```compile_fail,E0597
//! use std::sync::Arc;
//! let pool = Arc::new(hotpath_pool::BufferPool::<u8>::new(hotpath_pool::PoolConfig::default()));
//! let mut buf = pool.rent(64);
//! std::thread::spawn(move || buf[0] = 1).join().unwrap();
//! ```
//! The twin rents an [`OwnedRented`](crate::OwnedRented), which holds an `Arc` of the pool
//! (tokio's `acquire_owned` convention): `'static` and `Send`, it goes back to the pool from
//! the other thread.
//! ```
//! use std::sync::Arc;
//! let pool = Arc::new(hotpath_pool::BufferPool::<u8>::new(hotpath_pool::PoolConfig::default()));
//! let mut buf = Arc::clone(&pool).rent_owned(64);
//! std::thread::spawn(move || buf[0] = 1).join().unwrap();
//! assert_eq!(pool.stats().returns, 1);
//! ```
//! A pool that is itself `'static` needs no owned guard: [`shared`](crate::shared)'s guards,
//! like those of a pool in a `static`, are `Rented<'static, u8>`, so they move into a spawned
//! thread as they are.
//! ```
//! let mut buf: hotpath_pool::Rented<'static, u8> = hotpath_pool::shared().rent(64);
//! std::thread::spawn(move || buf[0] = 1).join().unwrap();
//! ```
//!
//! # 8. The owned guard keeps the same rules
//! An [`OwnedRented`](crate::OwnedRented) is given back by dropping it, once (E0382), exactly
//! like a `Rented`.
//! ```compile_fail,E0382
//! use std::sync::Arc;
//! let pool = Arc::new(hotpath_pool::BufferPool::<u8>::new(hotpath_pool::PoolConfig::default()));
//! let mut buf = pool.rent_owned(64);
//! drop(buf);
//! buf[0] = 99;
//! ```
//! The twin writes before giving back. Rule 4 is the one that changes: the guard owns a
//! reference to the pool, so dropping every other reference while a buffer is out compiles,
//! and the pool lives until the buffer comes back.
//! ```
//! use std::sync::Arc;
//! let pool = Arc::new(hotpath_pool::BufferPool::<u8>::new(hotpath_pool::PoolConfig::default()));
//! let mut buf = pool.rent_owned(64);
//! buf[0] = 99;
//! drop(buf);
//! ```
