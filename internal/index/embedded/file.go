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
// records; each record is framed as
//
//	uint32 payload length | uint32 CRC-32C of the payload | payload
//
// (little endian). A payload starts with its operation byte:
//
//	opUpsert  uvarint n, then n chunks
//	opDelete  string kbScope, string docID
//	opEnd     uvarint number of chunks (last record of a snapshot)
//
// A chunk is its strings (uvarint length + bytes: evidence key, doc id,
// source, title, breadcrumb, category, kbScope, text), a varint chunk
// index and dim float32 values. The header is
//
//	8-byte magic | uint32 format version | uint32 dim | uint64 generation | uint32 CRC-32C of the 24 bytes before
//
// index.snap is the whole index, written to a temporary file and renamed
// over the old one, so it is always complete. index.wal is the log of the
// writes since that snapshot: each write appends one record and is synced
// before it returns. The log's generation must equal the snapshot's: a log
// of an older generation is already contained in the snapshot (a crash
// between the two renames of a compaction) and is discarded. A torn record
// at the end of the log (a crash in the middle of an append, which never
// returned) is cut off.
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

// errTorn is a record that is incomplete or fails its checksum.
var errTorn = errors.New("torn or corrupt record")

// readRecord reads one record. It returns io.EOF at a clean end and errTorn
// (possibly wrapped) for an incomplete or corrupt one.
func readRecord(r *bufio.Reader, remaining int64) ([]byte, error) {
	var fr [frameSize]byte
	n, err := io.ReadFull(r, fr[:])
	if n == 0 && err == io.EOF {
		return nil, io.EOF
	}
	if err != nil {
		return nil, fmt.Errorf("%w: short frame", errTorn)
	}
	size := int64(binary.LittleEndian.Uint32(fr[:]))
	if size == 0 || size > maxPayload || size > remaining-frameSize {
		return nil, fmt.Errorf("%w: length %d", errTorn, size)
	}
	payload := make([]byte, size)
	if _, err := io.ReadFull(r, payload); err != nil {
		return nil, fmt.Errorf("%w: short payload", errTorn)
	}
	if crc32.Checksum(payload, castagnoli) != binary.LittleEndian.Uint32(fr[4:]) {
		return nil, fmt.Errorf("%w: checksum mismatch", errTorn)
	}
	return payload, nil
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

// decoder reads the fields of a payload; the first error sticks.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("malformed record: %s", what)
	}
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
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
	if n <= 0 {
		d.fail("bad varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) str() string {
	n := d.uvarint()
	if d.err != nil {
		return ""
	}
	if n > uint64(len(d.b)) {
		d.fail("string past the end")
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
	if d.err != nil {
		return c
	}
	if len(d.b) < 4*dim {
		d.fail("vector past the end")
		return c
	}
	c.Vector = make([]float32, dim)
	for i := range c.Vector {
		c.Vector[i] = math.Float32frombits(binary.LittleEndian.Uint32(d.b[4*i:]))
	}
	d.b = d.b[4*dim:]
	return c
}

func decodeOp(payload []byte, dim int) (op, error) {
	if len(payload) == 0 {
		return op{}, errors.New("malformed record: empty")
	}
	d := &decoder{b: payload[1:]}
	o := op{kind: payload[0]}
	switch o.kind {
	case opUpsert:
		n := d.uvarint()
		if n > uint64(len(d.b)) {
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
		return op{}, fmt.Errorf("malformed record: unknown operation %d", o.kind)
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail("trailing bytes")
	}
	return o, d.err
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
