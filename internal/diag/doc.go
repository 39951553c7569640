// Package diag holds what the messages of the tools have in common: Error,
// the FILE:LINE: MESSAGE error of every reader of a file a user writes, and
// Clip, which shortens the text a message quotes.
//
// The readers of golden cases and fixtures (contract), seed documents
// (corpus), TREC files (metrics) and mapped pipeline configs (mapped) all
// report a problem as an *Error, alone or in a List. A message thus names
// its place the same way everywhere, and one errors.As finds it.
//
// Clip and Prefix never cut inside a UTF-8 sequence, and Clip marks a cut
// with Ellipsis. The caller chooses the limit and what it counts: Bytes
// for a length bounded in bytes, Chars for text a person reads. A message
// that quotes what a service sent replaces the secrets in it before it
// cuts. Replaced after the cut, a secret the cut split would keep its
// start.
//
// The package imports nothing but the standard library. That is what lets
// metrics, which imports only the standard library as benchstat's
// benchmath does, report its syntax errors as an *Error. Keep it so.
package diag
