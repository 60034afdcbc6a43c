#!/usr/bin/env python3
"""Checks the labels of a scatter plot of a pisa-char report: the figure
captioned CAPTION has N points (circles of class "mark") and at most one
label (text of class "label") per point, no two of whose boxes overlap,
boxes as svg.c estimates them (5.6 px per character, 10 px high, the text's
y on its baseline 2 px above the box's bottom).
Usage: check_labels.py REPORT.html CAPTION N"""
import html
import re
import sys


def main(path, caption, n):
    page = open(path, encoding="utf-8").read()
    fig = page[page.index("<figcaption>%s</figcaption>" % caption):]
    fig = fig[:fig.index("</svg>")]
    points = fig.count('<circle class="mark"')
    assert points == int(n), (points, n)
    boxes = []
    for x, y, text in re.findall(
            r'<text class="label" x="([-0-9.]+)" y="([-0-9.]+)"[^>]*>(.*?)</text>',
            fig):
        w = 5.6 * len(html.unescape(text))
        x0, y1 = float(x), float(y) + 2
        boxes.append((x0, y1 - 10, x0 + w, y1))
    assert 0 < len(boxes) <= points, len(boxes)
    for i, a in enumerate(boxes):
        for b in boxes[:i]:
            overlap = a[0] < b[2] - 0.2 and b[0] < a[2] - 0.2 and \
                a[1] < b[3] - 0.2 and b[1] < a[3] - 0.2
            assert not overlap, (a, b)
    print("labels ok: %d of %d points labelled" % (len(boxes), points))


if __name__ == "__main__":
    main(*sys.argv[1:4])
