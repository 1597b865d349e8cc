//! Reading what the compiler made of a function (S4): the zeroing in its machine code, as
//! `objdump -d` prints it.
//!
//! The chapter's claim that small zeroed arrays become inline stores and large ones a `memset`
//! call is read from the binary, not guessed. [`disassemble`] runs `objdump` on one function of
//! a binary; [`read_zeroing`] classifies its lines. The reader understands x86-64 in AT&T
//! syntax (objdump's default), which is what the chapter's machine produces.
//!
//! ```
//! use stack_buffer_chapter::disasm::{read_zeroing, Verdict};
//! let body = [
//!     "   48e20:\tsub    $0x118,%rsp",
//!     "   48e27:\txorps  %xmm0,%xmm0",
//!     "   48e2a:\tmovaps %xmm0,0x100(%rsp)",
//!     "   48e32:\tmovaps %xmm0,0xf0(%rsp)",
//! ];
//! let read = read_zeroing(&body);
//! assert_eq!((read.zero_stores, read.zero_store_bytes), (2, 32));
//! assert_eq!(read.verdict(), Verdict::InlineStores { bytes: 32 });
//! ```

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// What one function's machine code does about zeroing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Disassembly {
    /// Instructions in the function.
    pub instructions: usize,
    /// Stores to memory of a register zeroed in the same function (`xorps`/`pxor`) or of an
    /// immediate 0. Stack probes are not counted here.
    pub zero_stores: usize,
    /// The bytes those stores write.
    pub zero_store_bytes: usize,
    /// Stack probes: `sub $0x1000,%rsp` then a store to `(%rsp)`, one per 4 KiB page of a
    /// frame larger than a page.
    pub stack_probes: usize,
    /// A call (or tail call) to `memset`.
    pub memset_call: bool,
    /// The bytes the `memset` calls zero, where the size is an immediate loaded into
    /// `%edx`/`%rdx` (the third argument) before the call; calls of unknown size add nothing.
    pub memset_bytes: usize,
    /// A `rep stos` instruction.
    pub rep_stos: bool,
    /// Calls (or tail calls) to `memcpy`: a value moved in memory, not zeroed.
    pub memcpy_calls: usize,
    /// The bytes those calls copy, where the size is an immediate loaded into `%edx`/`%rdx`
    /// (the third argument) before the call; calls of unknown size add nothing.
    pub memcpy_bytes: usize,
}

/// How a function zeroes, in one word: the S4 table's last column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It calls `memset`.
    MemsetCall,
    /// It uses `rep stos`.
    RepStos,
    /// It zeroes with inline stores, writing this many bytes.
    InlineStores {
        /// Bytes written by the zero stores.
        bytes: usize,
    },
    /// It does not zero anything.
    NoZeroing,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::MemsetCall => f.write_str("a `memset` call"),
            Verdict::RepStos => f.write_str("`rep stos`"),
            Verdict::InlineStores { bytes } => write!(f, "inline stores ({bytes} B)"),
            Verdict::NoZeroing => f.write_str("no zeroing"),
        }
    }
}

impl Disassembly {
    /// The one-word summary: a `memset` call wins over `rep stos`, which wins over inline
    /// stores.
    pub fn verdict(&self) -> Verdict {
        if self.memset_call {
            Verdict::MemsetCall
        } else if self.rep_stos {
            Verdict::RepStos
        } else if self.zero_stores > 0 {
            Verdict::InlineStores {
                bytes: self.zero_store_bytes,
            }
        } else {
            Verdict::NoZeroing
        }
    }
}

/// The width in bytes of a vector register operand (`%xmm…`, `%ymm…`, `%zmm…`), 0 otherwise.
fn vector_width(register: &str) -> usize {
    match register.get(..4) {
        Some("%xmm") => 16,
        Some("%ymm") => 32,
        Some("%zmm") => 64,
        _ => 0,
    }
}

/// The width of a store of an immediate, from the mnemonic's size suffix (`movq` = 8 bytes).
fn suffix_width(mnemonic: &str) -> usize {
    match mnemonic.chars().last() {
        Some('q') => 8,
        Some('l') => 4,
        Some('w') => 2,
        _ => 1,
    }
}

/// Reads the zeroing in one function's AT&T-syntax disassembly, one instruction per line as
/// `objdump -d --no-show-raw-insn` prints it (`   addr:\tmnemonic operands`): vector stores
/// from a register zeroed by `xor`/`pxor` in the same function, stores of `$0x0`, stack
/// probes, `rep stos` and calls to `memset`; and calls to `memcpy`; the size of a `memset` or
/// `memcpy` call when it is an immediate.
pub fn read_zeroing(body: &[&str]) -> Disassembly {
    let mut zeroed: Vec<String> = Vec::new();
    let mut read = Disassembly {
        instructions: body.len(),
        ..Disassembly::default()
    };
    let mut after_page_step = false;
    let mut third_argument: Option<usize> = None;
    for line in body {
        let page_step = line.contains("sub") && line.contains("$0x1000,%rsp");
        let probe = after_page_step && line.contains("(%rsp)") && !line.contains("sub");
        after_page_step = page_step;
        if probe {
            read.stack_probes += 1;
            continue;
        }
        if (line.contains("call") || line.contains("jmp")) && line.contains("memset") {
            read.memset_call = true;
            read.memset_bytes += third_argument.take().unwrap_or(0);
        }
        if line.contains("rep stos") {
            read.rep_stos = true;
        }
        if (line.contains("call") || line.contains("jmp")) && line.contains("memcpy") {
            read.memcpy_calls += 1;
            read.memcpy_bytes += third_argument.take().unwrap_or(0);
        }
        let mut parts = line.split_whitespace().skip(1);
        let mnemonic = parts.next().unwrap_or("");
        let operands: Vec<&str> = parts.next().unwrap_or("").split(',').collect();
        if let [src, "%edx" | "%rdx"] = operands[..] {
            third_argument = src
                .strip_prefix("$0x")
                .and_then(|hex| usize::from_str_radix(hex, 16).ok());
        }
        let is_xor = ["xorps", "pxor", "vxorps", "vpxor", "xorpd", "vxorpd"].contains(&mnemonic);
        if is_xor && operands.windows(2).all(|w| w[0] == w[1]) {
            zeroed.push(operands[0].to_owned());
            continue;
        }
        let Some((dst, src)) = operands.split_last() else {
            continue;
        };
        if !dst.contains('(') {
            // A register written by anything else is no longer known to be zero.
            zeroed.retain(|r| r != dst);
            continue;
        }
        match src.first() {
            Some(reg) if vector_width(reg) > 0 && zeroed.iter().any(|r| r == reg) => {
                read.zero_stores += 1;
                read.zero_store_bytes += vector_width(reg);
            }
            Some(&"$0x0") => {
                read.zero_stores += 1;
                read.zero_store_bytes += suffix_width(mnemonic);
            }
            _ => {}
        }
    }
    read
}

/// The lines of `symbol`'s body in `objdump -d -C` output: from the line after `<symbol>:` to
/// the next blank line. Empty if the symbol is not there. With several functions of that name
/// (the copies of a generic function: `objdump -C` prints no generic arguments), the first.
pub fn function_body<'a>(objdump_output: &'a str, symbol: &str) -> Vec<&'a str> {
    function_bodies(objdump_output, symbol)
        .into_iter()
        .next()
        .map_or_else(Vec::new, |(_, body)| body)
}

/// Every function named `symbol` in `objdump -d -C` output, with its address, in the order
/// printed (ascending addresses).
pub fn function_bodies<'a>(objdump_output: &'a str, symbol: &str) -> Vec<(u64, Vec<&'a str>)> {
    let header = format!(" <{symbol}>:");
    let mut lines = objdump_output.lines();
    let mut bodies = Vec::new();
    while let Some(line) = lines.by_ref().find(|l| l.ends_with(&header)) {
        let address = line
            .split_whitespace()
            .next()
            .and_then(|hex| u64::from_str_radix(hex, 16).ok())
            .unwrap_or(0);
        let body: Vec<&str> = lines
            .by_ref()
            .take_while(|l| !l.trim().is_empty())
            .collect();
        bodies.push((address, body));
    }
    bodies
}

/// The address and size of every function called `symbol` in `nm -C -S` output (the copies of
/// a generic function share a demangled name), in ascending order of address.
pub fn symbol_ranges(nm_output: &str, symbol: &str) -> Vec<(u64, u64)> {
    let mut ranges: Vec<(u64, u64)> = nm_output
        .lines()
        .filter_map(|line| {
            let mut parts = line.splitn(4, ' ');
            let (address, size, kind, name) =
                (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
            if name != symbol || !matches!(kind, "T" | "t") {
                return None;
            }
            let hex = |h: &str| u64::from_str_radix(h, 16).ok();
            Some((hex(address)?, hex(size)?))
        })
        .collect();
    ranges.sort_unstable();
    ranges
}

fn run(command: &mut Command, what: &str) -> Result<String, String> {
    let output = command
        .output()
        .map_err(|err| format!("cannot run {what}: {err}"))?;
    if !output.status.success() {
        return Err(format!("{what} failed ({})", output.status));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// `nm -C -S --defined-only` of `binary`, run once per path in a process and kept: the
/// binaries read here (this executable, a test's compiled fixture) do not change while it runs.
fn symbol_listing(binary: &Path) -> Result<Arc<str>, String> {
    static LISTINGS: OnceLock<Mutex<HashMap<PathBuf, Arc<str>>>> = OnceLock::new();
    let listings = LISTINGS.get_or_init(Mutex::default);
    let cached = listings
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(binary)
        .cloned();
    if let Some(listing) = cached {
        return Ok(listing);
    }
    let listing: Arc<str> = run(
        Command::new("nm")
            .args(["-C", "-S", "--defined-only"])
            .arg(binary),
        "nm",
    )?
    .into();
    listings
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(binary.to_path_buf(), Arc::clone(&listing));
    Ok(listing)
}

/// The address and size of every function called `symbol` in `binary`, as [`symbol_ranges`]
/// reads them from `nm`.
///
/// # Errors
/// If `nm` cannot be run or fails, or no such function is in the binary.
fn ranges_of(binary: &Path, symbol: &str) -> Result<Vec<(u64, u64)>, String> {
    let ranges = symbol_ranges(&symbol_listing(binary)?, symbol);
    if ranges.is_empty() {
        return Err(format!("`{symbol}` not found in {}", binary.display()));
    }
    Ok(ranges)
}

/// Disassembles the `size` bytes of `symbol` at `address` in `binary` with `objdump -d` and
/// reads its zeroing.
///
/// # Errors
/// If `objdump` cannot be run or fails, or prints no code for the function.
fn read_range(binary: &Path, symbol: &str, address: u64, size: u64) -> Result<Disassembly, String> {
    let text = run(
        Command::new("objdump")
            .args(["-d", "-C", "--no-show-raw-insn"])
            .arg(format!("--start-address={address:#x}"))
            .arg(format!("--stop-address={:#x}", address + size))
            .arg(binary),
        "objdump",
    )?;
    let body = function_body(&text, symbol);
    if body.is_empty() {
        return Err(format!("`{symbol}` at {address:#x}: no code"));
    }
    Ok(read_zeroing(&body))
}

/// Finds every function called `symbol` in `binary` (its demangled path, e.g.
/// `stack_buffer_chapter::workloads::zeroed_2k`; the copies of a generic function share it) with `nm`,
/// disassembles each with `objdump -d`, and reads its zeroing: `(address, reading)` in
/// ascending order of address.
///
/// # Errors
/// If `nm` or `objdump` cannot be run or fails, or no such function is in the binary (inlined
/// everywhere, or a wrong name).
pub fn disassemble_all(binary: &Path, symbol: &str) -> Result<Vec<(u64, Disassembly)>, String> {
    ranges_of(binary, symbol)?
        .into_iter()
        .map(|(address, size)| Ok((address, read_range(binary, symbol, address, size)?)))
        .collect()
}

/// [`disassemble_all`]'s first function of that name (the only one disassembled).
///
/// # Errors
/// As [`disassemble_all`].
pub fn disassemble(binary: &Path, symbol: &str) -> Result<Disassembly, String> {
    let (address, size) = ranges_of(binary, symbol)?[0];
    read_range(binary, symbol, address, size)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `zeroed_256b` from the release experiments binary (rustc 1.95.0, x86-64), its panic
    /// paths cut: sixteen 16-byte stores of a zeroed `%xmm0`.
    const ZEROED_256B: &str = "
0000000000048e20 <stack_buffer_chapter::workloads::zeroed_256b>:
   48e20:\tsub    $0x118,%rsp
   48e27:\txorps  %xmm0,%xmm0
   48e2a:\tmovaps %xmm0,0x100(%rsp)
   48e32:\tmovaps %xmm0,0xf0(%rsp)
   48e3a:\tmovaps %xmm0,0xe0(%rsp)
   48e42:\tmovaps %xmm0,0xd0(%rsp)
   48e4a:\tmovaps %xmm0,0xc0(%rsp)
   48e52:\tmovaps %xmm0,0xb0(%rsp)
   48e5a:\tmovaps %xmm0,0xa0(%rsp)
   48e62:\tmovaps %xmm0,0x90(%rsp)
   48e6a:\tmovaps %xmm0,0x80(%rsp)
   48e72:\tmovaps %xmm0,0x70(%rsp)
   48e77:\tmovaps %xmm0,0x60(%rsp)
   48e7c:\tmovaps %xmm0,0x50(%rsp)
   48e81:\tmovaps %xmm0,0x40(%rsp)
   48e86:\tmovaps %xmm0,0x30(%rsp)
   48e8b:\tmovaps %xmm0,0x20(%rsp)
   48e90:\tmovaps %xmm0,0x10(%rsp)
   48e95:\tlea    0x10(%rsp),%rax
   48e9a:\tmov    %rax,(%rsp)
   48e9e:\tmovq   $0x20,0x8(%rsp)
   48ebc:\tmovabs $0x3ff0000000000000,%rdx
   48ec6:\tmov    %rdx,(%rcx)
   48ef6:\tmovsd  (%rax),%xmm0
   48efa:\taddsd  (%rax,%rdi,8),%xmm0
   48eff:\tadd    $0x118,%rsp
   48f06:\tret

0000000000048f40 <stack_buffer_chapter::workloads::uninit_256b>:
   48f40:\tsub    $0x100,%rsp
";

    /// `zeroed_8k`, its first instructions: two stack probes, then `memset`.
    const ZEROED_8K: &str = "
000000000004a0e0 <stack_buffer_chapter::workloads::zeroed_8k>:
   4a0e0:\tpush   %rbx
   4a0e1:\tsub    $0x1000,%rsp
   4a0e8:\tmovq   $0x0,(%rsp)
   4a0f0:\tsub    $0x1000,%rsp
   4a0f7:\tmovq   $0x0,(%rsp)
   4a0ff:\tsub    $0x10,%rsp
   4a103:\tlea    0x10(%rsp),%rbx
   4a108:\tmov    $0x2000,%edx
   4a10d:\tmov    %rbx,%rdi
   4a110:\txor    %esi,%esi
   4a112:\tcall   *0x72098(%rip)        # bc1b0 <memset@GLIBC_2.2.5>
   4a118:\tmov    %rbx,(%rsp)
   4a11c:\tmovq   $0x400,0x8(%rsp)
   4a17d:\tadd    $0x2010,%rsp
   4a184:\tpop    %rbx
   4a185:\tret
";

    /// `uninit_8k`: one stack probe, and the touch's two stores of 1.0 and 2.0.
    const UNINIT_8K: &str = "
0000000000049fb0 <stack_buffer_chapter::workloads::uninit_8k>:
   49fb0:\tsub    $0x1000,%rsp
   49fb7:\tmovq   $0x0,(%rsp)
   49fbf:\tsub    $0xf88,%rsp
   49fc6:\tlea    -0x78(%rsp),%rax
   49fda:\tmovabs $0x3ff0000000000000,%rcx
   49fe4:\tmov    %rcx,(%rax)
   49fe7:\tmovabs $0x4000000000000000,%rcx
   49ff1:\tmov    %rcx,0x1ff8(%rax)
   4a00a:\tadd    $0x1f88,%rsp
   4a011:\tret
";

    fn read(text: &str, symbol: &str) -> Disassembly {
        let body = function_body(text, symbol);
        assert!(!body.is_empty(), "{symbol} not found");
        read_zeroing(&body)
    }

    /// S4's reader: sixteen 16-byte stores of a zeroed register are 256 B of inline zeroing.
    #[test]
    fn the_reader_counts_sixteen_vector_stores_as_256_bytes_of_inline_zeroing() {
        let d = read(ZEROED_256B, "stack_buffer_chapter::workloads::zeroed_256b");
        assert_eq!(d.instructions, 27, "the body stops at the blank line");
        assert_eq!((d.zero_stores, d.zero_store_bytes), (16, 256));
        assert_eq!(d.verdict(), Verdict::InlineStores { bytes: 256 });
        assert_eq!(d.verdict().to_string(), "inline stores (256 B)");
        assert_eq!(d.stack_probes, 0);
    }

    /// S4's reader: a probe is a store to `(%rsp)` right after a page step, not zeroing, and a
    /// `memset` call's size is the immediate in `%edx` before it.
    #[test]
    fn the_reader_tells_stack_probes_from_zeroing_and_reads_the_memset_size() {
        let d = read(ZEROED_8K, "stack_buffer_chapter::workloads::zeroed_8k");
        assert_eq!(d.stack_probes, 2, "one store per 4 KiB page, not zeroing");
        assert_eq!(d.zero_stores, 0);
        assert!(d.memset_call);
        assert_eq!(d.memset_bytes, 8192);
        assert_eq!(d.verdict(), Verdict::MemsetCall);
    }

    /// S4's reader: stores of 1.0 and 2.0 are not zeroing.
    #[test]
    fn the_reader_finds_no_zeroing_where_only_nonzero_values_are_stored() {
        let d = read(UNINIT_8K, "stack_buffer_chapter::workloads::uninit_8k");
        assert_eq!(d.stack_probes, 1);
        assert_eq!(
            d.zero_stores, 0,
            "the stores of 1.0 and 2.0 are not zero stores"
        );
        assert_eq!(d.verdict(), Verdict::NoZeroing);
    }

    #[test]
    fn a_register_overwritten_after_xor_is_no_longer_zero() {
        let body = [
            "   0:\txorps  %xmm1,%xmm1",
            "   3:\tmovaps %xmm1,(%rsp)",
            "   7:\tmovaps 0x10(%rdi),%xmm1",
            "   b:\tmovaps %xmm1,0x10(%rsp)",
            "   f:\tmovl   $0x0,0x20(%rsp)",
            "  17:\trep stos %rax,%es:(%rdi)",
        ];
        let d = read_zeroing(&body);
        assert_eq!((d.zero_stores, d.zero_store_bytes), (2, 20));
        assert!(d.rep_stos);
        assert_eq!(d.verdict(), Verdict::RepStos);
    }

    /// S12: a `SmallVec<[f64; 256]>` built and moved: the `memset` of the values in use, then a
    /// `memcpy` of the whole value (0x808 = 2,056 bytes).
    #[test]
    fn s12_a_memcpy_of_immediate_size_is_counted_with_its_bytes() {
        let body = [
            "   e0771:\tmov    %rbx,%rdx",
            "   e0774:\tcall   *0xc9a6e(%rip)        # 1aa1e8 <memset@GLIBC_2.2.5>",
            "   e0798:\tmov    $0x808,%edx",
            "   e079d:\tmov    %r14,%rdi",
            "   e07a0:\tcall   *0xc9b3a(%rip)        # 1aa2e0 <memcpy@GLIBC_2.14>",
            "   e07b0:\tmov    %rax,%rdx",
            "   e07c0:\tjmp    *0xc9b3a(%rip)        # 1aa2e0 <memcpy@GLIBC_2.14>",
        ];
        let d = read_zeroing(&body);
        assert!(d.memset_call);
        assert_eq!((d.memcpy_calls, d.memcpy_bytes), (2, 2056));
    }

    #[test]
    fn a_missing_symbol_has_an_empty_body() {
        assert!(
            function_body(ZEROED_256B, "stack_buffer_chapter::workloads::zeroed_2k").is_empty()
        );
        assert!(function_body(ZEROED_256B, "zeroed_256").is_empty());
    }

    /// S4's reader: the copies of a generic function are found by name in `nm`'s listing.
    #[test]
    fn the_reader_finds_every_copy_of_a_generic_function_in_the_symbols() {
        let nm = "\
00000000001042f0 0000000000000050 T stack_buffer_chapter::workloads::zeroed_8k
00000000001042a0 0000000000000048 T stack_buffer_chapter::workloads::zeroed_8k
0000000000104100 0000000000000041 T stack_buffer_chapter::workloads::uninit_8k
00000000001cd2b0 0000000000000008 d stack_buffer_chapter::workloads::zeroed_8k
";
        assert_eq!(
            symbol_ranges(nm, "stack_buffer_chapter::workloads::zeroed_8k"),
            [(0x1042a0, 0x48), (0x1042f0, 0x50)]
        );
        assert!(symbol_ranges(nm, "stack_buffer_chapter::workloads::zeroed_2k").is_empty());
    }

    /// S4's reader: the two copies of a generic function share a demangled name; both are
    /// read, each with its address.
    #[test]
    fn the_reader_finds_every_copy_of_a_generic_function() {
        let two = format!("{ZEROED_8K}\n{}", ZEROED_8K.replace("4a0e0 <", "4a1e0 <"));
        let bodies = function_bodies(&two, "stack_buffer_chapter::workloads::zeroed_8k");
        let addresses: Vec<u64> = bodies.iter().map(|(a, _)| *a).collect();
        assert_eq!(addresses, [0x4a0e0, 0x4a1e0]);
        assert_eq!(read_zeroing(&bodies[0].1), read_zeroing(&bodies[1].1));
    }
}
