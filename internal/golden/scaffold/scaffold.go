// Package scaffold is the starter eval set that rag-eval init writes
// (docs/README.md). It holds a golden file with three cases, two seed
// documents in the corpus format, empty fixtures and reports directories,
// and a .gitignore that keeps the generated reports, which are not the
// accepted ones, out of git. Everything here is data and pure functions,
// and cmd/rag-eval writes the files.
//
// The starter is valid as written. The golden file parses strictly
// (docs/golden-cases.md). The documents pass rag-seed's validation
// (docs/corpus.md). Its cases pass on the builtin pipeline after rag-seed
// and rag-snapshot, with either in-process embedder. Its tests check the
// first two.
package scaffold

import (
	"path/filepath"
	"strings"
)

// A File is one file of the starter set.
type File struct {
	// Path is the file's place in the set, slash-separated.
	Path string
	// What says what the file is, for rag-eval init's listing.
	What string
	Data []byte
}

// A Dir is a directory of the starter set that holds no file of it.
type Dir struct {
	Path, What string
}

// Dirs are the starter set's empty directories. They are created so that
// rag-eval --dir judges the new set at once, with every case not run and
// exit 1, rather than stopping at a missing fixture directory.
var Dirs = []Dir{
	{"fixtures", "empty: rag-snapshot freezes each case's lookup here"},
	{"reports", "empty: rag-eval writes its reports here"},
}

// FallbackKBScope is the kb scope of a set whose directory name gives none.
const FallbackKBScope = "rag-eval"

// DefaultKBScope is the kb scope a new set in dir gets unless one is
// given. It is the directory's name, lower-cased, with every run of
// characters a kb scope cannot hold turned into one '-', trimmed to start
// with a letter or digit, at most 255 bytes: eval/Payments Runbooks gives
// payments-runbooks. It is FallbackKBScope when nothing is left. Each set
// gets its own namespace in the store, so seeding one set never touches
// another's documents, with rag-seed --prune above all.
func DefaultKBScope(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(filepath.Base(dir)) {
		switch {
		case 'a' <= r && r <= 'z', '0' <= r && r <= '9', r == '.', r == '_', r == '-':
			if (r == '.' || r == '_' || r == '-') && b.Len() == 0 {
				continue
			}
			b.WriteRune(r)
			dash = false
		case b.Len() > 0 && !dash:
			b.WriteByte('-')
			dash = true
		}
	}
	s := strings.TrimRight(b.String(), "-")
	if len(s) > 255 {
		s = strings.TrimRight(s[:255], "-")
	}
	if s == "" {
		return FallbackKBScope
	}
	return s
}

// Files are the starter set's files for kbScope, in the order rag-eval
// init lists them. kbScope must be valid (kb.ValidKBScope).
func Files(kbScope string) []File {
	r := strings.NewReplacer("{{kbScope}}", kbScope)
	return []File{
		{Path: "cases/golden-cases.json", What: "3 starter cases: two lookups, one off-topic question", Data: []byte(r.Replace(goldenCases))},
		{Path: "seed-docs/disk-full.md", What: "a starter document (a runbook)", Data: []byte(r.Replace(diskFull))},
		{Path: "seed-docs/deploy-rollback.md", What: "a starter document (a runbook)", Data: []byte(r.Replace(deployRollback))},
		{Path: ".gitignore", What: "keeps generated reports out of git; reports/baseline.* is committed", Data: []byte(gitignore)},
	}
}

const goldenCases = `{
  "version": 1,
  "kbScope": "{{kbScope}}",
  "k": 5,
  "cases": [
    {
      "caseId": "disk-full-enospc",
      "scenario": "chat",
      "tags": ["starter", "hosts"],
      "query": "writes fail with No space left on device, how do I find what fills the disk?",
      "notes": "A starter case written by rag-eval init: replace it with a question your users ask (docs/golden-cases.md). It pins the document (expectedSources), the section (expectedBreadcrumbs: the document's breadcrumb, then the headings down to the section) and words the answer must contain (expectedKeywords, looked for in the top-K excerpts).",
      "expectedSources": ["disk-full"],
      "expectedBreadcrumbs": ["Hosts > Linux > Disk > Find what fills the disk"],
      "expectedKeywords": ["du", "lsof"],
      "expectedFound": true
    },
    {
      "caseId": "rollback-kubernetes",
      "scenario": "chat",
      "tags": ["starter", "releases"],
      "query": "how do I roll back a Kubernetes deployment after a bad release?",
      "notes": "A starter case: the rollback runbook must be the first block (expectedFirstRankMax 1), and the command must be in an excerpt.",
      "expectedSources": ["deploy-rollback"],
      "expectedKeywords": ["kubectl rollout undo"],
      "expectedFirstRankMax": 1
    },
    {
      "caseId": "off-topic-weather",
      "scenario": "negative",
      "tags": ["starter", "off-topic"],
      "query": "what will the weather be like in Paris tomorrow?",
      "notes": "A starter case: nothing in the corpus answers an off-topic question, so the lookup must find nothing. Off-topic cases are what rag-eval calibrate uses as negatives; write a few of your own.",
      "expectedFound": false
    }
  ]
}
`

const diskFull = `---
source: disk-full
title: Disk full on a Linux host
breadcrumb: Hosts > Linux > Disk
category: hosts
kb_scope: {{kbScope}}
keywords: [disk full, no space left on device, inode]
aliases:
  - filesystem full
---
# Disk full on a Linux host

A starter document written by rag-eval init: replace it with your own
documents (docs/corpus.md). The frontmatter above is metadata: keywords and
aliases steer the lookup to a category and are never searched as text.

## Symptoms

Writes fail with "No space left on device" (ENOSPC), services crash while
writing logs, and ` + "`df -h`" + ` shows the filesystem at 100%. When ` + "`df -h`" + `
shows free space but writes still fail, the inodes are used up: check
` + "`df -i`" + `.

## Find what fills the disk

Walk the filesystem from its mount point with du, staying on one
filesystem: ` + "`du -xh --max-depth=1 / | sort -h`" + `, then descend into the largest
directory. Space held by deleted files that a process still has open is
not visible to du: list them with lsof (` + "`lsof +L1`" + `) and restart or signal
the process that holds them.

## Free space safely

Rotate and compress logs (` + "`logrotate -f /etc/logrotate.conf`" + `), clean the
package cache, remove old container images (` + "`docker image prune`" + `). Never
delete a database's data or write-ahead log files to make room.
`

const deployRollback = `---
source: deploy-rollback
title: Roll back a bad deployment
breadcrumb: Releases > Rollback
category: releases
kb_scope: {{kbScope}}
keywords: [rollback, roll back, bad release]
---
# Roll back a bad deployment

A starter document written by rag-eval init: replace it with your own
documents (docs/corpus.md).

## When to roll back

Roll back as soon as a release raises the error rate or the latency above
its objective and the cause is not understood within minutes. Rolling back
first and investigating afterwards is the default.

## Kubernetes

Undo the last rollout of the deployment with ` + "`kubectl rollout undo deployment/NAME`" + `,
or go back to a given revision with ` + "`--to-revision=N`" + ` (the revisions are
listed by ` + "`kubectl rollout history deployment/NAME`" + `). Watch the rollback with
` + "`kubectl rollout status deployment/NAME`" + `.

## Afterwards

Freeze further releases of the service, keep the logs of the bad release,
and write down what happened while it is fresh.
`

const gitignore = `# Written by rag-eval init. Reports that rag-eval writes but that are not
# the accepted baseline: reports/baseline.json and reports/baseline.md are
# committed, and reviewing their diff is how a new baseline is accepted.
/reports/current.*
/reports/baseline-diff.*
/reports/compare.*
/reports/junit*.xml
# Transient files of interrupted runs (rag-snapshot's staging directories,
# atomic writes).
.*.staging-*
.*.tmp-*
`
