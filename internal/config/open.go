package config

import (
	"context"
	"fmt"

	"github.com/ragbaseline/ragbaseline/internal/catalog/mysql"
	"github.com/ragbaseline/ragbaseline/internal/catalog/sqlite"
	"github.com/ragbaseline/ragbaseline/internal/embed"
	"github.com/ragbaseline/ragbaseline/internal/embed/cache/rediscache"
	"github.com/ragbaseline/ragbaseline/internal/embed/cache/sqlitecache"
	"github.com/ragbaseline/ragbaseline/internal/embed/local"
	"github.com/ragbaseline/ragbaseline/internal/embed/openai"
	"github.com/ragbaseline/ragbaseline/internal/index/embedded"
	"github.com/ragbaseline/ragbaseline/internal/index/milvus"
	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// Open validates c and opens its backends. On error nothing stays open.
func Open(ctx context.Context, c Config) (s *Stack, err error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	s = &Stack{}
	defer func() {
		if err != nil {
			s.Close()
			s = nil
		}
	}()

	var emb kb.Embedder
	switch c.Embedder {
	case EmbedderLocal:
		e, err := local.New(c.EmbedDim)
		if err != nil {
			return nil, fmt.Errorf("local embedder: %w", err)
		}
		emb = e
	case EmbedderOpenAI:
		e, err := openai.New(openai.Options{
			BaseURL: c.OpenAIBaseURL, APIKey: c.OpenAIKey, Model: c.EmbedModel, Dim: c.EmbedDim, Timeout: c.Timeout,
		})
		if err != nil {
			return nil, fmt.Errorf("openai embedder at %s: %w", RedactURL(c.OpenAIBaseURL), err)
		}
		emb = e
	}

	var cache kb.EmbedCache
	switch c.Store {
	case StoreEmbedded:
		dbPath := c.dataPath("catalog.db")
		cat, err := sqlite.Open(dbPath)
		if err != nil {
			return nil, fmt.Errorf("embedded catalog %s: %w", dbPath, err)
		}
		s.Catalog = cat
		s.closers = append(s.closers, cat.Close)
		if cache, err = sqlitecache.Open(dbPath); err != nil {
			return nil, fmt.Errorf("embedding cache %s: %w", dbPath, err)
		}
		s.closers = append(s.closers, cache.Close)
		idx, err := embedded.Open(c.dataPath("index"))
		if err != nil {
			return nil, err // names the index directory
		}
		s.Index = idx
		s.closers = append(s.closers, idx.Close)
	case StoreServer:
		cat, err := mysql.Open(c.MySQLDSN)
		if err != nil {
			return nil, err
		}
		s.Catalog = cat
		s.closers = append(s.closers, cat.Close)
		if c.RedisAddr != "" {
			rc, err := rediscache.Open(c.RedisAddr)
			if err != nil {
				return nil, err
			}
			cache = rc
			s.closers = append(s.closers, rc.Close)
		}
		idx, err := milvus.Open(ctx, milvus.Config{Addr: c.MilvusAddr, Collection: c.MilvusCollection, Timeout: c.Timeout})
		if err != nil {
			return nil, err
		}
		s.Index = idx
		s.closers = append(s.closers, idx.Close)
	}
	s.Embedder = emb
	if cache != nil {
		s.Embedder = embed.Cached(emb, cache)
	}
	return s, nil
}
