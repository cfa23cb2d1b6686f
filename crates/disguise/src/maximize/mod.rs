//! Maximization algorithms, generic over objective × constraint × selector.
