package usem3

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// The sentencepiece model file is a serialised ModelProto
// (sentencepiece_model.proto). Of it the tokenizer reads
//
//	ModelProto      1 pieces (repeated SentencePiece), 3 normalizer_spec
//	SentencePiece   1 piece (string), 2 score (float), 3 type (enum)
//	NormalizerSpec  1 name, 2 precompiled_charsmap (bytes),
//	                3 add_dummy_prefix, 4 remove_extra_whitespaces,
//	                5 escape_whitespaces (bools, default true)
//
// and skips every other field. The decoder below is the minimal protobuf
// wire-format reader that needs.

// spPiece is one vocabulary entry.
type spPiece struct {
	piece string
	score float32
	typ   int // 1 normal, 2 unknown, 3 control, 4 user defined, 5 unused, 6 byte
}

// spModel is what the tokenizer needs of a sentencepiece model.
type spModel struct {
	pieces                 []spPiece
	normalizerName         string
	charsmap               []byte
	addDummyPrefix         bool
	removeExtraWhitespaces bool
	escapeWhitespaces      bool
}

var errTruncated = errors.New("truncated protobuf message")

// pbField is one decoded field: its number and wire type, and the varint
// or fixed value, or the bytes of a length-delimited field.
type pbField struct {
	num   int
	wire  int
	value uint64
	bytes []byte
}

func pbVarint(b []byte) (uint64, int, error) {
	var v uint64
	for i := 0; i < len(b) && i < 10; i++ {
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i] < 0x80 {
			if i == 9 && b[i] > 1 {
				return 0, 0, errors.New("protobuf varint overflows 64 bits")
			}
			return v, i + 1, nil
		}
	}
	if len(b) < 10 {
		return 0, 0, errTruncated
	}
	return 0, 0, errors.New("protobuf varint longer than 10 bytes")
}

// pbFields calls f for each field of the message b, in order.
func pbFields(b []byte, f func(pbField) error) error {
	for len(b) > 0 {
		tag, n, err := pbVarint(b)
		if err != nil {
			return err
		}
		b = b[n:]
		fd := pbField{num: int(tag >> 3), wire: int(tag & 7)}
		if fd.num <= 0 || tag>>3 > math.MaxInt32 {
			return fmt.Errorf("invalid protobuf field number %d", tag>>3)
		}
		switch fd.wire {
		case 0:
			fd.value, n, err = pbVarint(b)
			if err != nil {
				return err
			}
			b = b[n:]
		case 1:
			if len(b) < 8 {
				return errTruncated
			}
			fd.value = binary.LittleEndian.Uint64(b)
			b = b[8:]
		case 2:
			l, n, err := pbVarint(b)
			if err != nil {
				return err
			}
			b = b[n:]
			if l > uint64(len(b)) {
				return errTruncated
			}
			fd.bytes = b[:l]
			b = b[l:]
		case 5:
			if len(b) < 4 {
				return errTruncated
			}
			fd.value = uint64(binary.LittleEndian.Uint32(b))
			b = b[4:]
		default:
			return fmt.Errorf("unsupported protobuf wire type %d (field %d)", fd.wire, fd.num)
		}
		if err := f(fd); err != nil {
			return err
		}
	}
	return nil
}

// parseSPModel decodes a serialised sentencepiece ModelProto.
func parseSPModel(data []byte) (*spModel, error) {
	m := &spModel{addDummyPrefix: true, removeExtraWhitespaces: true, escapeWhitespaces: true}
	haveNormalizer := false
	err := pbFields(data, func(f pbField) error {
		switch {
		case f.num == 1 && f.wire == 2:
			p := spPiece{typ: 1}
			err := pbFields(f.bytes, func(g pbField) error {
				switch {
				case g.num == 1 && g.wire == 2:
					p.piece = string(g.bytes)
				case g.num == 2 && g.wire == 5:
					p.score = math.Float32frombits(uint32(g.value))
				case g.num == 3 && g.wire == 0:
					p.typ = int(g.value)
				}
				return nil
			})
			if err != nil {
				return fmt.Errorf("piece %d: %w", len(m.pieces), err)
			}
			m.pieces = append(m.pieces, p)
		case f.num == 3 && f.wire == 2:
			haveNormalizer = true
			return pbFields(f.bytes, func(g pbField) error {
				switch {
				case g.num == 1 && g.wire == 2:
					m.normalizerName = string(g.bytes)
				case g.num == 2 && g.wire == 2:
					m.charsmap = g.bytes
				case g.num == 3 && g.wire == 0:
					m.addDummyPrefix = g.value != 0
				case g.num == 4 && g.wire == 0:
					m.removeExtraWhitespaces = g.value != 0
				case g.num == 5 && g.wire == 0:
					m.escapeWhitespaces = g.value != 0
				}
				return nil
			})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(m.pieces) == 0 {
		return nil, errors.New("no vocabulary pieces")
	}
	if !haveNormalizer {
		return nil, errors.New("no normalizer spec")
	}
	for i, p := range m.pieces {
		if math.IsNaN(float64(p.score)) || math.IsInf(float64(p.score), 0) {
			return nil, fmt.Errorf("piece %d (%q) has a non-finite score", i, p.piece)
		}
	}
	return m, nil
}
