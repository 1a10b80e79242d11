// The Go worker's parser as a benchmark peer: parses every file named on the command line with
// gofeed (Debian's golang-github-mmcdole-gofeed-dev) in one process and touches each item's title,
// link and dates, as the old worker did before storing. Built by feed-parse.sh; never shipped.
package main

import (
	"fmt"
	"os"

	"github.com/mmcdole/gofeed"
)

func main() {
	parser := gofeed.NewParser()
	items, failed, touched := 0, 0, 0
	for _, path := range os.Args[1:] {
		file, err := os.Open(path)
		if err != nil {
			failed++
			continue
		}
		feed, err := parser.Parse(file)
		file.Close()
		if err != nil {
			failed++
			continue
		}
		for _, item := range feed.Items {
			touched += len(item.Title) + len(item.Link)
			if item.PublishedParsed != nil {
				touched++
			}
		}
		items += len(feed.Items)
	}
	fmt.Printf("%d items, %d failed, %d bytes touched\n", items, failed, touched)
	if failed > 0 {
		os.Exit(1)
	}
}
