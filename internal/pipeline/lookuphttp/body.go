package lookuphttp

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/ianaindex"
	"golang.org/x/text/transform"
)

// prefixLen is how much of a body a bodyReader keeps for the excerpts of
// errors. An excerpt quotes 200 characters, so the prefix holds them but
// for a body starting with tens of kilobytes of white space.
const prefixLen = 64 << 10

// errTooLarge is a bodyReader's error for a body over its limit.
var errTooLarge = errors.New("response body over the limit")

// notUTF8Error is a bodyReader's error for a body that is not UTF-8 once
// decoded from its charset.
type notUTF8Error struct {
	offset  int64  // of the first byte that is not UTF-8, in the decoded text
	charset string // as declared, "" for none
}

func (e *notUTF8Error) Error() string {
	if e.charset != "" {
		return fmt.Sprintf("response is not valid UTF-8 once decoded from charset %s (byte %d)", e.charset, e.offset)
	}
	return fmt.Sprintf("response is not valid UTF-8 (byte %d): JSON is UTF-8, and a server sending another encoding must name it in Content-Type's charset", e.offset)
}

// A bodyReader reads a response body: at most limit bytes of it, decoded
// from the charset its Content-Type declares, and, when strict, checked to
// be UTF-8. It keeps the start of the text for the excerpts of errors. Its
// err is the first error other than io.EOF it returned: errTooLarge, a
// *notUTF8Error or the transport's.
type bodyReader struct {
	r       io.Reader // the decoded text
	raw     io.Reader // the body as sent
	read    int64     // bytes read of raw
	limit   int64
	charset string // as declared, when not UTF-8
	strict  bool
	prefix  []byte
	cut     bool   // the text goes on after prefix
	offset  int64  // bytes of text read
	pending []byte // the start of a UTF-8 sequence that the next read completes
	err     error
}

// newBodyReader reads resp's body, of at most limit bytes. A charset that
// is neither UTF-8 nor one IANA names is an error, unknownCharset, and the
// body is then read as it is.
func newBodyReader(resp *http.Response, limit int64) (b *bodyReader, unknownCharset error) {
	b = &bodyReader{raw: resp.Body, limit: limit}
	b.r = readerFunc(b.readRaw)
	cs, enc, err := declaredCharset(resp.Header.Get("Content-Type"))
	if err != nil || enc == nil {
		return b, err
	}
	b.charset = cs
	b.r = transform.NewReader(b.r, enc.NewDecoder())
	return b, nil
}

// declaredCharset returns the charset a Content-Type declares and its
// encoding, or no encoding when the text is UTF-8 as it is: no charset,
// UTF-8, or US-ASCII, which is UTF-8 too. A charset that IANA does not
// name is an error, and the text is then read as it is.
func declaredCharset(contentType string) (string, encoding.Encoding, error) {
	_, params, err := mime.ParseMediaType(contentType)
	cs := strings.TrimSpace(params["charset"])
	if err != nil || cs == "" || strings.EqualFold(cs, "utf-8") || strings.EqualFold(cs, "utf8") || strings.EqualFold(cs, "us-ascii") {
		return "", nil, nil
	}
	enc, err := ianaindex.IANA.Encoding(cs)
	if err != nil || enc == nil {
		return cs, nil, fmt.Errorf("response charset %s is not one this client decodes (send UTF-8)", strconv.Quote(cs))
	}
	return cs, enc, nil
}

// Text returns a whole body as UTF-8 text, as a Client reads an answer:
// decoded from the charset contentType declares, when it declares one
// other than UTF-8. A charset IANA does not name, or text that is not
// valid UTF-8 then, is an error giving the byte offset. Nothing becomes
// U+FFFD. The mapped pipeline reads its answers with it.
func Text(contentType string, body []byte) ([]byte, error) {
	cs, enc, err := declaredCharset(contentType)
	if err != nil {
		return body, err
	}
	if enc != nil {
		if body, err = enc.NewDecoder().Bytes(body); err != nil {
			return body, fmt.Errorf("response charset %s: %w", cs, err)
		}
	}
	if !utf8.Valid(body) {
		off := 0
		for off < len(body) {
			r, n := utf8.DecodeRune(body[off:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			off += n
		}
		return body, &notUTF8Error{offset: int64(off), charset: cs}
	}
	return body, nil
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// readRaw reads the body as sent, failing with errTooLarge past the limit.
func (b *bodyReader) readRaw(p []byte) (int, error) {
	if int64(len(p)) > b.limit+1-b.read {
		p = p[:b.limit+1-b.read]
	}
	n, err := b.raw.Read(p)
	b.read += int64(n)
	if b.read > b.limit {
		return 0, errTooLarge
	}
	return n, err
}

func (b *bodyReader) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.r.Read(p)
	if n > 0 {
		room := prefixLen - len(b.prefix)
		if room > 0 {
			b.prefix = append(b.prefix, p[:min(n, room)]...)
		}
		if n > room {
			b.cut = true
		}
		if b.strict {
			if e := b.check(p[:n]); e != nil {
				b.err = e
				return 0, e
			}
		}
		b.offset += int64(n)
	}
	if err == io.EOF && b.strict && len(b.pending) > 0 {
		err = &notUTF8Error{offset: b.offset - int64(len(b.pending)), charset: b.charset}
	}
	if err != nil && err != io.EOF {
		b.err = err
	}
	return n, err
}

// check checks that p, the text read after b.offset, continues valid
// UTF-8. A sequence p ends in the middle of waits in b.pending.
func (b *bodyReader) check(p []byte) error {
	i := 0
	for len(b.pending) > 0 && i < len(p) {
		b.pending = append(b.pending, p[i])
		i++
		if utf8.FullRune(b.pending) {
			if r, n := utf8.DecodeRune(b.pending); r == utf8.RuneError && n <= 1 || n != len(b.pending) {
				return &notUTF8Error{offset: b.offset - int64(len(b.pending)-i), charset: b.charset}
			}
			b.pending = b.pending[:0]
		}
	}
	if len(b.pending) > 0 {
		return nil // p ended before the sequence did
	}
	rest := p[i:]
	// Keep back a sequence cut by the end of p.
	end := len(rest)
	for k := len(rest) - 1; k >= 0 && k >= len(rest)-utf8.UTFMax; k-- {
		if utf8.RuneStart(rest[k]) {
			if !utf8.FullRune(rest[k:]) {
				end = k
			}
			break
		}
	}
	if !utf8.Valid(rest[:end]) {
		for j := 0; j < end; {
			r, n := utf8.DecodeRune(rest[j:end])
			if r == utf8.RuneError && n == 1 {
				return &notUTF8Error{offset: b.offset + int64(i+j), charset: b.charset}
			}
			j += n
		}
	}
	b.pending = append(b.pending[:0], rest[end:]...)
	return nil
}

// excerpt is the Excerpt of the start of the text, with secrets replaced
// by scrub first. It reads on to fill the prefix, since a decoder that
// failed may have read less. When the text goes on past the prefix, the
// end of the prefix is left out, since a secret the prefix cuts would keep
// its start.
func (b *bodyReader) excerpt(scrub func(string) string) string {
	if !b.cut && b.err == nil {
		strict := b.strict
		b.strict = false // the excerpt shows bytes that are not UTF-8 as U+FFFD
		io.CopyN(io.Discard, b, prefixLen+1-int64(len(b.prefix)))
		b.strict = strict
	}
	p := b.prefix
	if b.cut {
		p = p[:len(p)/2]
	}
	return Excerpt([]byte(scrub(string(p))))
}
