package embedded

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// The files of an index directory. Both data files are a header followed by
// records. Each record is framed as
//
//	uint32 payload length | uint32 CRC-32C of the payload | payload
//
// in little endian. A payload starts with its operation byte:
//
//	opUpsert  uvarint n, then n chunks
//	opDelete  string kbScope, string docID
//	opEnd     uvarint number of chunks, the last record of a snapshot
//
// A chunk is its strings, then a varint chunk index and dim float32 values.
// Each string is a uvarint length and the bytes. The strings are the
// evidence key, doc id, source, title, breadcrumb, category, kbScope and
// text. The header is
//
//	8-byte magic | uint32 format version | uint32 dim | uint64 generation | uint32 CRC-32C of the 24 bytes before
//
// index.snap is the whole index. It is written to a temporary file and
// renamed over the old one, so it is always complete, and any flaw in it is
// corruption. index.wal is the log of the upserts and deletes since that
// snapshot. Each write appends its records with one write per record and
// syncs before it returns. The log's generation must equal the snapshot's.
// A log of an older generation is discarded, because the snapshot already
// contains it. A crash between the two renames of a compaction leaves one.
//
// Torn tail or corruption. Only the last write can be unsynced when the
// process dies. An unsynced write never returned to its caller, so dropping
// it loses nothing anybody was told was saved. A crash in the middle of an
// append leaves the file short: it ends inside the frame being appended.
// The log is read record by record. The bytes after the last good record
// are a torn tail, dropped, exactly when
//
//   - fewer than a frame header of 8 bytes remain, so no record fits in them,
//   - they are all zero bytes, because the file was extended but the data
//     never reached the disk, and a zero length is not a record, or
//   - the frame's declared length runs past the end of the file and the
//     payload bytes present are a proper prefix of a well-formed upsert or
//     delete. That is, decoding them runs out of input before the operation
//     is complete. A frame header with no payload yet is such a prefix.
//
// Anything else that is not a good record is corruption, wherever it is.
// That is a checksum mismatch, a payload that does not decode, or one that
// decodes to a complete operation shorter than its declared length. It is
// an end record or an unknown operation in the log. It is an impossible
// length, 0 or more than maxPayload, followed by non-zero bytes. In
// particular a complete frame with a checksum mismatch is corruption even
// when it is the last record. A complete frame ends at or before the end of
// the file. The filesystems this runs on are ext4 with data=ordered, XFS,
// btrfs and APFS. On them an append's new size reaches the disk no earlier
// than its data. So a crash leaves a short file, not a full-length record
// with wrong bytes. And the write it holds may have been acknowledged, so
// cutting it would be a silent loss. Some filesystems can expose a
// full-length but partly written append after a crash, ext4 with
// data=writeback for one. There such a tail is reported as corruption too,
// a clear error instead of a guess. Likewise, a write of several records
// may be torn with an earlier record of it damaged and a later one intact.
// That is reported as corruption. maxRecordBytes splits an upsert into such
// records.
//
// Corruption is never repaired: the files are left exactly as they are. The
// error is a *CorruptError. It names the file, the byte offset of the bad
// record and the way out, rag-seed --recreate.
const (
	snapName   = "index.snap"
	walName    = "index.wal"
	lockName   = "LOCK"
	snapMagic  = "RAGBIDX\n"
	walMagic   = "RAGBWAL\n"
	version    = 1
	headerSize = 28
	frameSize  = 8

	opUpsert = 1
	opDelete = 2
	opEnd    = 3

	// snapBatch is the number of chunks per record of a snapshot.
	snapBatch = 512
	// maxPayload bounds a record, so a corrupt length cannot make the
	// reader allocate without limit. Writers stay far below it
	// (maxRecordBytes, snapBatch).
	maxPayload = 1 << 30
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

type header struct {
	magic string
	dim   int
	gen   uint64
}

func appendHeader(b []byte, h header) []byte {
	start := len(b)
	b = append(b, h.magic...)
	b = binary.LittleEndian.AppendUint32(b, version)
	b = binary.LittleEndian.AppendUint32(b, uint32(h.dim))
	b = binary.LittleEndian.AppendUint64(b, h.gen)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b[start:], castagnoli))
}

// errVersion marks a file written by another format version.
var errVersion = errors.New("format version")

func readHeader(r io.Reader, magic string) (header, error) {
	var b [headerSize]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return header{}, fmt.Errorf("short header: %w", err)
	}
	if string(b[:8]) != magic {
		return header{}, errors.New("not an embedded index file (bad magic)")
	}
	if crc32.Checksum(b[:24], castagnoli) != binary.LittleEndian.Uint32(b[24:]) {
		return header{}, errors.New("header checksum mismatch")
	}
	if v := binary.LittleEndian.Uint32(b[8:]); v != version {
		return header{}, fmt.Errorf("%w %d, this build reads %d", errVersion, v, version)
	}
	h := header{magic: magic, dim: int(binary.LittleEndian.Uint32(b[12:])), gen: binary.LittleEndian.Uint64(b[16:])}
	if h.dim <= 0 || h.dim > 1<<20 {
		return header{}, fmt.Errorf("invalid dimension %d", h.dim)
	}
	return h, nil
}

// frame returns the record framing of payload.
func frame(payload []byte) []byte {
	out := make([]byte, frameSize, frameSize+len(payload))
	binary.LittleEndian.PutUint32(out, uint32(len(payload)))
	binary.LittleEndian.PutUint32(out[4:], crc32.Checksum(payload, castagnoli))
	return append(out, payload...)
}

// ErrCorrupt matches (errors.Is) every *CorruptError.
var ErrCorrupt = errors.New("corrupt embedded index")

// CorruptError is a damaged index file: a header or record that is neither
// what the writer wrote nor a torn last append (see the format comment).
// The file has been left as it was.
type CorruptError struct {
	Path   string // the damaged file
	Offset int64  // byte offset of the bad header or record
	Reason string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("embedded index: %s is corrupt at byte offset %d: %s; the file was left untouched: rebuild the index with rag-seed --recreate",
		e.Path, e.Offset, e.Reason)
}

// Is makes errors.Is(err, ErrCorrupt) true.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

// readRecord reads the record at offset off of a file of size bytes whose
// reader r is positioned there. It returns io.EOF at the end of the file.
// A record that is incomplete or fails its checksum is a *CorruptError:
// in a snapshot there is no torn tail (see scanLog for the log).
func readRecord(r *bufio.Reader, path string, off, size int64) ([]byte, error) {
	rem := size - off
	if rem == 0 {
		return nil, io.EOF
	}
	bad := func(format string, a ...any) error {
		return &CorruptError{Path: path, Offset: off, Reason: fmt.Sprintf(format, a...)}
	}
	if rem < frameSize {
		return nil, bad("%d bytes, shorter than a record frame", rem)
	}
	var fr [frameSize]byte
	if _, err := io.ReadFull(r, fr[:]); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	n := int64(binary.LittleEndian.Uint32(fr[:]))
	if n == 0 || n > maxPayload {
		return nil, bad("impossible record length %d", n)
	}
	if n > rem-frameSize {
		return nil, bad("record length %d runs past the end of the file (%d bytes left)", n, rem-frameSize)
	}
	payload := make([]byte, n)
	if _, err := io.ReadFull(r, payload); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if crc32.Checksum(payload, castagnoli) != binary.LittleEndian.Uint32(fr[4:]) {
		return nil, bad("checksum mismatch in a record of %d bytes", n)
	}
	return payload, nil
}

// scanLog reads the records of a log of size bytes at path, r positioned
// just after its header, and calls apply with each operation. It returns
// the offset just after the last good record. When bytes follow it that are
// a torn last append, it also returns why they are, by the rule of the
// format comment. The caller decides whether to cut them. Anything else is
// a *CorruptError, or an I/O error.
func scanLog(r *bufio.Reader, path string, size int64, dim int, apply func(op)) (end int64, torn string, err error) {
	off := int64(headerSize)
	for {
		rem := size - off
		if rem == 0 {
			return off, "", nil
		}
		if rem < frameSize {
			return off, fmt.Sprintf("%d bytes, shorter than a record frame", rem), nil
		}
		bad := func(format string, a ...any) error {
			return &CorruptError{Path: path, Offset: off, Reason: fmt.Sprintf(format, a...)}
		}
		var fr [frameSize]byte
		if _, err := io.ReadFull(r, fr[:]); err != nil {
			return off, "", fmt.Errorf("%s: %w", path, err)
		}
		n := int64(binary.LittleEndian.Uint32(fr[:]))
		if n == 0 || n > maxPayload || n > rem-frameSize {
			// Not a complete frame: a torn tail only if the rest of
			// the file is consistent with one.
			rest := make([]byte, rem-frameSize)
			if _, err := io.ReadFull(r, rest); err != nil {
				return off, "", fmt.Errorf("%s: %w", path, err)
			}
			if allZero(fr[:]) && allZero(rest) {
				return off, fmt.Sprintf("%d zero bytes", rem), nil
			}
			if n == 0 || n > maxPayload {
				return off, "", bad("impossible record length %d, followed by %d bytes", n, rem-frameSize)
			}
			if isOpPrefix(rest, n, dim) {
				return off, fmt.Sprintf("a record of %d bytes cut after %d", n, len(rest)), nil
			}
			return off, "", bad("record length %d runs past the end of the file, but the %d bytes present are not the beginning of a record of that length", n, len(rest))
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(r, payload); err != nil {
			return off, "", fmt.Errorf("%s: %w", path, err)
		}
		next := off + frameSize + n
		if crc32.Checksum(payload, castagnoli) != binary.LittleEndian.Uint32(fr[4:]) {
			if next == size {
				return off, "", bad("checksum mismatch in the last record, which is complete (%d bytes), so not a torn append", n)
			}
			return off, "", bad("checksum mismatch in a record of %d bytes, followed by %d more bytes", n, size-next)
		}
		o, err := decodeOp(payload, dim)
		if err == nil && o.kind != opUpsert && o.kind != opDelete {
			err = fmt.Errorf("operation %d in a log", o.kind)
		}
		if err != nil {
			return off, "", bad("%v", err)
		}
		apply(o)
		off = next
	}
}

func allZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendChunk(b []byte, c kb.Chunk, vec []float32) []byte {
	for _, s := range [...]string{c.EvidenceKey, c.DocID, c.Source, c.Title, c.Breadcrumb, c.Category, c.KBScope, c.Text} {
		b = appendString(b, s)
	}
	b = binary.AppendVarint(b, int64(c.ChunkIndex))
	for _, x := range vec {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// maxRecordBytes is the size in bytes from which an upsert is split into
// several records (each under maxPayload, which the reader enforces).
const maxRecordBytes = 32 << 20

// encodeUpserts encodes chunks as one or more upsert payloads of at most
// about maxRecordBytes each.
func encodeUpserts(chunks []kb.Chunk) [][]byte {
	var out [][]byte
	start, size := 0, 0
	for i, c := range chunks {
		n := 64 + 4*len(c.Vector) + len(c.EvidenceKey) + len(c.DocID) + len(c.Source) + len(c.Title) +
			len(c.Breadcrumb) + len(c.Category) + len(c.KBScope) + len(c.Text)
		if i > start && size+n > maxRecordBytes {
			out = append(out, encodeUpsert(chunks[start:i]))
			start, size = i, 0
		}
		size += n
	}
	return append(out, encodeUpsert(chunks[start:]))
}

func encodeUpsert(chunks []kb.Chunk) []byte {
	b := []byte{opUpsert}
	b = binary.AppendUvarint(b, uint64(len(chunks)))
	for _, c := range chunks {
		b = appendChunk(b, c, c.Vector)
	}
	return b
}

func encodeDelete(kbScope, docID string) []byte {
	b := []byte{opDelete}
	b = appendString(b, kbScope)
	return appendString(b, docID)
}

// op is a decoded record.
type op struct {
	kind    byte
	chunks  []kb.Chunk // opUpsert
	kbScope string     // opDelete
	docID   string     // opDelete
	count   uint64     // opEnd
}

// decoder reads the fields of a payload, and the first error sticks. The
// payload may be only the first bytes of a record, with extra > 0 bytes
// missing. Then a read that would need the missing bytes sets short.
type decoder struct {
	b     []byte
	extra uint64 // declared payload bytes missing after b
	err   error
	short bool
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("malformed record: %s", what)
	}
}

// need reports whether k more bytes are there. If not, the read fails,
// and is short if the declared length had room for them.
func (d *decoder) need(k uint64, what string) bool {
	if d.err != nil {
		return false
	}
	if k <= uint64(len(d.b)) {
		return true
	}
	if d.extra > 0 && k-uint64(len(d.b)) <= d.extra {
		d.short = true
	}
	d.fail(what)
	return false
}

// cut fails a read of a varint that ends where b ends.
func (d *decoder) cut(what string) {
	if d.extra > 0 {
		d.short = true
	}
	d.fail(what)
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n == 0 {
		d.cut("bad uvarint")
		return 0
	}
	if n < 0 {
		d.fail("bad uvarint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n == 0 {
		d.cut("bad varint")
		return 0
	}
	if n < 0 {
		d.fail("bad varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) str() string {
	n := d.uvarint()
	if !d.need(n, "string past the end") {
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) chunk(dim int) kb.Chunk {
	var c kb.Chunk
	for _, p := range [...]*string{&c.EvidenceKey, &c.DocID, &c.Source, &c.Title, &c.Breadcrumb, &c.Category, &c.KBScope, &c.Text} {
		*p = d.str()
	}
	c.ChunkIndex = int(d.varint())
	if !d.need(4*uint64(dim), "vector past the end") {
		return c
	}
	c.Vector = make([]float32, dim)
	for i := range c.Vector {
		c.Vector[i] = math.Float32frombits(binary.LittleEndian.Uint32(d.b[4*i:]))
	}
	d.b = d.b[4*dim:]
	return c
}

// decodeOp decodes a whole payload.
func decodeOp(payload []byte, dim int) (op, error) {
	if len(payload) == 0 {
		return op{}, errors.New("malformed record: empty")
	}
	d := &decoder{b: payload[1:]}
	o := d.op(payload[0], dim)
	return o, d.err
}

// isOpPrefix reports whether b, the first bytes of a payload declared
// n > len(b) bytes long, is a proper prefix of a well-formed upsert or
// delete of that length: decoding it runs out of input, and nothing
// before that is malformed.
func isOpPrefix(b []byte, n int64, dim int) bool {
	if len(b) == 0 {
		return true
	}
	if b[0] != opUpsert && b[0] != opDelete {
		return false
	}
	d := &decoder{b: b[1:], extra: uint64(n) - uint64(len(b))}
	d.op(b[0], dim)
	return d.err != nil && d.short
}

// op decodes an operation of kind from d.b.
func (d *decoder) op(kind byte, dim int) op {
	o := op{kind: kind}
	switch o.kind {
	case opUpsert:
		n := d.uvarint()
		if d.err == nil && n > uint64(len(d.b))+d.extra {
			d.fail("chunk count past the end")
		}
		for i := uint64(0); i < n && d.err == nil; i++ {
			o.chunks = append(o.chunks, d.chunk(dim))
		}
	case opDelete:
		o.kbScope = d.str()
		o.docID = d.str()
	case opEnd:
		o.count = d.uvarint()
	default:
		d.fail(fmt.Sprintf("unknown operation %d", o.kind))
		return op{}
	}
	if d.err == nil && (len(d.b) != 0 || d.extra != 0) {
		d.fail("trailing bytes")
	}
	return o
}

// checkChunk rejects what the index cannot store faithfully: a missing
// evidence key, document id or kbScope, a vector of another dimension or
// with a NaN or infinity, a string that is not valid UTF-8 (the Milvus
// backend rejects it too, so both backends accept the same chunks).
func checkChunk(c kb.Chunk, dim int) error {
	if c.EvidenceKey == "" || c.KBScope == "" || c.DocID == "" {
		return fmt.Errorf("chunk %q of document %q in kbScope %q: evidence key, document id and kbScope are required", c.EvidenceKey, c.DocID, c.KBScope)
	}
	if len(c.Vector) != dim {
		return fmt.Errorf("chunk %s: vector has dimension %d, the index %d", c.EvidenceKey, len(c.Vector), dim)
	}
	for _, x := range c.Vector {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("chunk %s: vector has a non-finite value", c.EvidenceKey)
		}
	}
	for _, s := range [...]string{c.EvidenceKey, c.DocID, c.Source, c.Title, c.Breadcrumb, c.Category, c.KBScope, c.Text} {
		if !utf8.ValidString(s) {
			return fmt.Errorf("chunk %q: a field is not valid UTF-8", c.EvidenceKey)
		}
	}
	return nil
}

// fileSize returns the size of f.
func fileSize(f *os.File) (int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}
