// Command sweeptest removes what killed integration test runs left on the
// local services. It removes test databases, ragbaseline_test_*, on the
// MySQL/MariaDB server of RAG_MYSQL_DSN. It removes test collections, t_*
// and t_lookup_*, on the Milvus server of RAG_MILVUS_ADDR. It removes only
// those older than an hour, by the time their names carry, as
// kbtest.RandomName makes them. Nothing else is touched. `make
// services-clean` runs it, and CI does after `make services`.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/milvus-io/milvus/client/v2/milvusclient"

	"github.com/ragbaseline/ragbaseline/internal/testkit/kbtest"
)

func main() {
	drop := flag.String("drop-collection", "", "also drop this Milvus collection (the fault script's own)")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	failed := false
	if dsn := os.Getenv("RAG_MYSQL_DSN"); dsn != "" {
		dropped, err := kbtest.SweepMySQL(ctx, dsn, kbtest.SweepAge)
		if err != nil {
			fmt.Fprintf(os.Stderr, "sweeptest: mysql: %v\n", err)
			failed = true
		}
		fmt.Printf("sweeptest: dropped %d stale test databases\n", len(dropped))
	}
	if addr := os.Getenv("RAG_MILVUS_ADDR"); addr != "" {
		n, err := sweepMilvus(ctx, addr, *drop)
		if err != nil {
			fmt.Fprintf(os.Stderr, "sweeptest: milvus at %s: %v\n", addr, err)
			failed = true
		}
		fmt.Printf("sweeptest: dropped %d stale test collections\n", n)
	}
	if failed {
		os.Exit(1)
	}
}

func sweepMilvus(ctx context.Context, addr, drop string) (int, error) {
	cli, err := milvusclient.New(ctx, &milvusclient.ClientConfig{Address: addr})
	if err != nil {
		return 0, err
	}
	defer cli.Close(context.Background())
	names, err := cli.ListCollections(ctx, milvusclient.NewListCollectionOption())
	if err != nil {
		return 0, err
	}
	n := 0
	for _, name := range names {
		if name != drop && !kbtest.Stale(name, kbtest.SweepAge, time.Now()) {
			continue
		}
		if err := cli.DropCollection(ctx, milvusclient.NewDropCollectionOption(name)); err != nil {
			return n, fmt.Errorf("drop %s: %w", name, err)
		}
		n++
	}
	return n, nil
}
