//! The previous tenant's data, pinned through the chapter's tenancy workloads: what the next
//! renter of a buffer finds with and without clearing (P4), which ways of letting go of a secret
//! wipe it (P5), and a `VecPool`'s vector, which shows nothing stale (P4).

use pool::ClearPolicy;
use pool_chapter::workloads::{self, FIRST_LINE, LetGo, SECOND_LINE};

/// P4: the seed's sequence without clearing.
#[test]
fn without_clearing_the_next_renter_sees_all_41_bytes_of_the_previous_line() {
    let seen = workloads::stale_data(ClearPolicy::Never);
    assert!(seen.same_buffer);
    assert_eq!((seen.first_written, seen.second_written), (41, 25));
    assert_eq!(seen.nonzero_before_writing, 41);
    // Byte 25 is the last byte of the old line's `ุ`: a read with the remembered length starts
    // the stale tail in the middle of a character.
    assert_eq!(seen.wrong_length_read, Err(25));
    assert_eq!(
        seen.wrong_length_lossy,
        "7|ส้มตำ|1|6000\n\u{FFFD}้ง|2|18000\n"
    );
    assert_eq!(seen.nonzero_after_second_return, 41);
}

/// P4: the seed's sequence with a pool that clears on return.
#[test]
fn with_clear_on_return_the_next_renter_sees_0_non_zero_bytes() {
    let seen = workloads::stale_data(ClearPolicy::OnReturn);
    assert!(seen.same_buffer);
    assert_eq!(seen.nonzero_before_writing, 0);
    assert_eq!(seen.wrong_length_read, Ok(()));
    assert_eq!(seen.wrong_length_lossy.trim_end_matches('\0'), SECOND_LINE);
    assert_eq!(seen.nonzero_after_second_return, 0);
}

/// P5, P11: of the four ways to let go of a 16-byte secret, only `give_back_cleared` and a
/// pool that clears on return leave nothing for the next renter; `rent_cleared` clears when
/// the buffer is rented, so the secret written after it stays.
#[test]
fn only_give_back_cleared_or_a_clearing_pool_wipes_a_secret_and_rent_cleared_does_not() {
    let left: Vec<(usize, bool)> = LetGo::ALL
        .iter()
        .map(|&how| workloads::secret_left_for_next_renter(how))
        .collect();
    assert_eq!(left, [(16, true), (16, true), (0, true), (0, true)]);
}

/// P4 with a vector: the same storage, length 0, and a read with the remembered length finds
/// nothing instead of the previous line's tail.
#[test]
fn the_next_renter_of_a_vec_gets_the_same_storage_and_cannot_read_the_previous_line() {
    let seen = workloads::stale_vec();
    assert!(seen.same_buffer);
    assert_eq!(seen.len_before_writing, 0);
    assert_eq!(
        (seen.first_written, seen.second_written),
        (FIRST_LINE.len(), SECOND_LINE.len())
    );
    assert_eq!(seen.wrong_length_read, None);
}
