/* doc_writer: Markdown and HTML from one set of calls (doc_writer.h). */
#include "reports/doc_writer.h"

#include <stdlib.h>
#include <string.h>

/* Text with `code` spans into the HTML file only: escaped, backticks
 * turned into <code> elements. */
static void html_text(FILE *html, const char *s)
{
    int code = 0;
    for (; *s; s++) {
        switch (*s) {
        case '`':
            fputs(code ? "</code>" : "<code>", html);
            code = !code;
            break;
        case '<': fputs("&lt;", html); break;
        case '>': fputs("&gt;", html); break;
        case '&': fputs("&amp;", html); break;
        case '"': fputs("&quot;", html); break;
        default: fputc(*s, html);
        }
    }
    if (code)
        fputs("</code>", html);
}

static void text(kcal_doc *d, const char *s)
{
    if (d->md)
        fputs(s, d->md);
    if (d->html)
        html_text(d->html, s);
}

void kcal_doc_begin(kcal_doc *d, const char *title, const char *heading)
{
    if (d->html) {
        fputs("<!DOCTYPE html>\n<html lang=\"en\"><head>"
              "<meta charset=\"utf-8\">\n<title>", d->html);
        html_text(d->html, title);
        fputs("</title>\n<style>\n"
              "body{font-family:sans-serif;max-width:1100px;margin:2em auto;"
              "line-height:1.45;color:#222}\n"
              "table{border-collapse:collapse;margin:1em 0}\n"
              "td,th{border:1px solid #ccc;padding:.2em .6em;text-align:left}\n"
              "th{background:#f3f3f3}code{background:#f3f3f3;padding:0 .2em}\n"
              "img{max-width:100%;border:1px solid #ddd}\n"
              "</style></head><body>\n", d->html);
    }
    if (d->md)
        fprintf(d->md, "# %s\n\n", heading);
    if (d->html) {
        fputs("<h1>", d->html);
        html_text(d->html, heading);
        fputs("</h1>\n", d->html);
    }
}

void kcal_doc_end(kcal_doc *d)
{
    if (d->html)
        fputs("</body></html>\n", d->html);
}

void kcal_doc_heading(kcal_doc *d, int level, const char *s)
{
    if (d->md)
        fprintf(d->md, "\n%.*s ", level, "######");
    if (d->html)
        fprintf(d->html, "<h%d>", level);
    text(d, s);
    if (d->md)
        fputs("\n\n", d->md);
    if (d->html)
        fprintf(d->html, "</h%d>\n", level);
}

void kcal_doc_paras(kcal_doc *d, const char *s)
{
    while (*s) {
        const char *e = strstr(s, "\n\n");
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len) {
            char *para = strndup(s, len);
            if (para) {
                if (d->html)
                    fputs("<p>", d->html);
                text(d, para);
                if (d->md)
                    fputs("\n\n", d->md);
                if (d->html)
                    fputs("</p>\n", d->html);
                free(para);
            }
        }
        s += len;
        while (*s == '\n')
            s++;
    }
}

void kcal_doc_image(kcal_doc *d, const char *src, const char *alt)
{
    if (d->md)
        fprintf(d->md, "![%s](%s)\n\n", alt, src);
    if (d->html)
        fprintf(d->html, "<p><a href=\"%s\"><img src=\"%s\" alt=\"%s\" "
                "width=\"1000\"></a></p>\n", src, src, alt);
}

void kcal_doc_table(kcal_doc *d, int ncols, const char *const *head)
{
    if (d->md) {
        fputs("|", d->md);
        for (int i = 0; i < ncols; i++)
            fprintf(d->md, " %s |", head[i]);
        fputs("\n|", d->md);
        for (int i = 0; i < ncols; i++)
            fputs("---|", d->md);
        fputs("\n", d->md);
    }
    if (d->html) {
        fputs("<table>\n<tr>", d->html);
        for (int i = 0; i < ncols; i++) {
            fputs("<th>", d->html);
            html_text(d->html, head[i]);
            fputs("</th>", d->html);
        }
        fputs("</tr>\n", d->html);
    }
}

void kcal_doc_row(kcal_doc *d, int ncols, const char *const *cells)
{
    if (d->md)
        fputs("|", d->md);
    if (d->html)
        fputs("<tr>", d->html);
    for (int i = 0; i < ncols; i++) {
        if (d->md)
            fputs(" ", d->md);
        if (d->html)
            fputs("<td>", d->html);
        text(d, cells[i]);
        if (d->md)
            fputs(" |", d->md);
        if (d->html)
            fputs("</td>", d->html);
    }
    if (d->md)
        fputs("\n", d->md);
    if (d->html)
        fputs("</tr>\n", d->html);
}

void kcal_doc_table_end(kcal_doc *d)
{
    if (d->md)
        fputs("\n", d->md);
    if (d->html)
        fputs("</table>\n", d->html);
}
