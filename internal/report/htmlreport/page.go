package htmlreport

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"html/template"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/report/mdcell"
	"github.com/ragbaseline/ragbaseline/internal/textnorm"
	"golang.org/x/text/unicode/norm"
)

//go:embed assets
var assets embed.FS

var (
	css    = mustRead("assets/report.css")
	script = mustRead("assets/report.js")
	// csp allows the page's own style and its one script (by hash) and
	// nothing else: no request can leave the page, and an inline event
	// handler that got into the markup would not run.
	csp = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-" +
		hash(script) + "'; base-uri 'none'; form-action 'none'"
)

func mustRead(name string) string {
	b, err := assets.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func hash(s string) string {
	h := sha256.Sum256([]byte(s))
	return base64.StdEncoding.EncodeToString(h[:])
}

// page is what the layout needs besides the body.
type page struct {
	Title    string
	Subtitle string
	CSP      string
	CSS      template.CSS
	JS       template.JS
}

func newPage(title, subtitle string) page {
	return page{Title: title, Subtitle: subtitle, CSP: csp, CSS: template.CSS(css), JS: template.JS(script)}
}

var funcs = template.FuncMap{
	"f":      func(f *contract.Float6) string { return mdcell.Float(f) },
	"signed": func(f *contract.Float6) string { return mdcell.Signed(f) },
	"int":    func(p *int) string { return mdcell.Int(p) },
	"opt":    func(p *string) string { return mdcell.Or(p, mdcell.None) },
	"join":   strings.Join,
	"lines":  func(ss []string) string { return strings.Join(ss, "\n") },
}

// parse returns the layout with one page's body.
func parse(body string) *template.Template {
	t := template.Must(template.New("layout.tmpl").Funcs(funcs).ParseFS(assets, "assets/layout.tmpl", "assets/parts.tmpl"))
	return template.Must(t.ParseFS(assets, "assets/"+body))
}

// render executes t into memory, so that a template error writes nothing.
func render(w io.Writer, t *template.Template, data any) error {
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// num formats v with d decimals, for SVG coordinates.
func num(v float64, d int) string { return strconv.FormatFloat(v, 'f', d, 64) }

// segment is a run of text, marked or not.
type segment struct {
	Text string
	Mark bool
}

// maxExcerptChars is the most characters of one excerpt a page shows. It
// is the largest chunk rag-seed makes (corpus.MaxChunkChars), so every
// excerpt of the builtin pipeline is shown whole. Only an external
// pipeline can return a longer one: five excerpts of 10 MB made a page of
// 157 MB.
const maxExcerptChars = 16000

// excerpt is highlight on the first maxExcerptChars characters of text.
// cut says what was left out, "" when nothing was. A keyword is marked
// where it lies wholly in the characters shown.
func excerpt(text string, keywords []string) (segs []segment, cut string) {
	n, end := 0, len(text)
	for i := range text {
		if n == maxExcerptChars {
			end = i
			break
		}
		n++
	}
	if end == len(text) {
		return highlight(text, keywords), ""
	}
	total := n + utf8.RuneCountInString(text[end:])
	return highlight(text[:end], keywords), "… (cut: the first " + thousands(maxExcerptChars) + " of " + thousands(total) + " characters shown)"
}

// thousands writes n with a comma between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// highlight splits text into segments, marking every occurrence of the
// keywords as the judge finds them. The judge compares after
// textnorm.Normalize, which applies NFKC and case folding. Overlapping
// occurrences merge. An occurrence that begins or ends inside the normal
// form of a piece of text marks the whole piece: ﬁ is fi, and e with a
// combining accent is é.
func highlight(text string, keywords []string) []segment {
	if text == "" {
		return nil
	}
	var norm strings.Builder
	var from, to []int // the span of text each byte of norm comes from
	if ascii(text) {
		// Normalize is ASCII lower-casing here, byte for byte.
		norm.Grow(len(text))
		from, to = make([]int, len(text)), make([]int, len(text))
		for i := 0; i < len(text); i++ {
			c := text[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			norm.WriteByte(c)
			from[i], to[i] = i, i+1
		}
	} else {
		from, to = normalizeSegments(text, &norm)
	}
	return mark(text, norm.String(), from, to, keywords)
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// normalizeSegments writes the normal form of text to b, NFKC segment by
// segment (a segment is a piece NFKC transforms as a whole: a character
// and the marks that combine with it), case-folded, white space as it is.
// It returns the span of text each byte written comes from.
func normalizeSegments(text string, b *strings.Builder) (from, to []int) {
	from, to = make([]int, 0, len(text)), make([]int, 0, len(text))
	b.Grow(len(text))
	var it norm.Iter
	it.InitString(norm.NFKC, text)
	var pending []byte
	start := 0
	for !it.Done() {
		pending = append(pending, it.Next()...)
		end := it.Pos()
		if end == start {
			// Output ahead of the input it comes from (ﬁ gives f, then
			// i as it consumes ﬁ).
			continue
		}
		if len(pending) == 1 && pending[0] < utf8.RuneSelf {
			// ASCII, as Normalize would do it.
			c := pending[0]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b.WriteByte(c)
			from, to = append(from, start), append(to, end)
			pending, start = pending[:0], end
			continue
		}
		n := string(pending)
		if strings.IndexFunc(n, func(r rune) bool { return !unicode.IsSpace(r) }) >= 0 {
			if nn := textnorm.Normalize(n); nn != "" {
				n = nn
			}
		}
		for range len(n) {
			from, to = append(from, start), append(to, end)
		}
		b.WriteString(n)
		pending, start = pending[:0], end
	}
	return from, to
}

// mark segments text by the occurrences of the keywords in its normal form
// ns, the byte i of ns coming from text[from[i]:to[i]].
func mark(text, ns string, from, to []int, keywords []string) []segment {
	marked := make([]bool, len(text))
	for _, kw := range keywords {
		k := textnorm.Normalize(kw)
		if k == "" {
			continue
		}
		for off := 0; ; {
			j := strings.Index(ns[off:], k)
			if j < 0 {
				break
			}
			for p := from[off+j]; p < to[off+j+len(k)-1]; p++ {
				marked[p] = true
			}
			off += j + 1
			for off < len(ns) && !utf8.RuneStart(ns[off]) {
				off++
			}
		}
	}
	var out []segment
	for i := 0; i < len(text); {
		j := i
		for j < len(text) && marked[j] == marked[i] {
			j++
		}
		out = append(out, segment{Text: text[i:j], Mark: marked[i]})
		i = j
	}
	return out
}
