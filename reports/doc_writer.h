/* doc_writer: one writer, two formats. Every call writes the same content
 * to a Markdown file (for a repository viewer) and an HTML file (for a
 * browser), so report.md and index.html can never say different things.
 * Text may hold `code` spans: kept as they are in Markdown, <code> in HTML,
 * where the text is escaped. Either file may be NULL. Write errors are left
 * in the FILEs (ferror) for the caller to check once. */
#ifndef KCAL_DOC_WRITER_H
#define KCAL_DOC_WRITER_H

#include <stdio.h>

typedef struct {
    FILE *md, *html;
} kcal_doc;

/* The HTML page head (title, style) and the document's level-1 heading. */
void kcal_doc_begin(kcal_doc *d, const char *title, const char *heading);
/* Close the HTML page. */
void kcal_doc_end(kcal_doc *d);

/* A heading of level 2 .. 6. */
void kcal_doc_heading(kcal_doc *d, int level, const char *text);
/* Paragraphs: a blank line ("\n\n") in text starts a new one. */
void kcal_doc_paras(kcal_doc *d, const char *text);
/* An image (a link to itself in HTML, 1000 pixels wide). */
void kcal_doc_image(kcal_doc *d, const char *src, const char *alt);

/* A table: its header row, then rows of the same width, then the end. */
void kcal_doc_table(kcal_doc *d, int ncols, const char *const *head);
void kcal_doc_row(kcal_doc *d, int ncols, const char *const *cells);
void kcal_doc_table_end(kcal_doc *d);

#endif
