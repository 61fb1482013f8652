//! Unit tests of the transforms' axes, lengths and normalisation factors.

use super::transform::{groups, real_group, resolve};
use super::Norm;

#[test]
fn grouping() {
    assert_eq!(groups(&[2, 0, 1]), vec![vec![0, 1, 2]]);
    assert_eq!(groups(&[0, 1, 2, 3]), vec![vec![0], vec![1, 2, 3]]);
    assert_eq!(groups(&[0, 2, 3]), vec![vec![0], vec![2, 3]]);
    assert_eq!(real_group(&[0, 1, 2]), (vec![0, 1, 2], vec![]));
    assert_eq!(real_group(&[2, 1]), (vec![1], vec![2]));
    assert_eq!(real_group(&[0, 2]), (vec![2], vec![0]));
}

#[test]
fn resolving() {
    let (a, l) = resolve("t", &[2, 3, 4], None, &[], true).unwrap();
    assert_eq!((a, l), (vec![0, 1, 2], vec![2, 3, 4]));
    let (a, l) = resolve("t", &[2, 3, 4], Some(&[5]), &[], true).unwrap();
    assert_eq!((a, l), (vec![2], vec![5]));
    let (a, _) = resolve("t", &[2, 3, 4], None, &[], false).unwrap();
    assert_eq!(a, vec![1, 2]);
    assert!(resolve("t", &[2, 3], None, &[0, -2], true).is_err());
    assert!(resolve("t", &[2, 3], Some(&[1]), &[0, 1], true).is_err());
    assert!(resolve("t", &[2, 3], None, &[2], true).is_err());
}

#[test]
fn norms() {
    assert_eq!(Norm::Backward.factor(4, false), 1.0);
    assert_eq!(Norm::Backward.factor(4, true), 0.25);
    assert_eq!(Norm::Ortho.factor(4, true), 0.5);
    assert_eq!(Norm::Forward.factor(4, false), 0.25);
    assert_eq!(Norm::Forward.factor(4, true), 1.0);
}
