//! Lab 4's reference solution: the nodes live in a `bumpalo` arena sized for the tree, and
//! refer to each other by reference; dropping the arena frees them all at once.

use bumpalo::Bump;

struct Node<'a> {
    value: u64,
    left: Option<&'a Node<'a>>,
    right: Option<&'a Node<'a>>,
}

fn build<'a>(arena: &'a Bump, i: u64, n: u64) -> Option<&'a Node<'a>> {
    (i < n).then(|| {
        let (left, right) = (build(arena, 2 * i + 1, n), build(arena, 2 * i + 2, n));
        &*arena.alloc(Node {
            value: i,
            left,
            right,
        })
    })
}

fn sum(node: Option<&Node<'_>>) -> u64 {
    node.map_or(0, |n| n.value + sum(n.left) + sum(n.right))
}

pub fn build_and_sum(n: usize) -> u64 {
    let arena = Bump::with_capacity(n * std::mem::size_of::<Node<'_>>());
    sum(build(&arena, 0, n as u64))
}
