import type { DxfTag, Point3 } from '../model.js';
import { formatInt, formatReal } from './values.js';

const CODE_TEXT: string[] = [];
for (let code = 0; code < 1072; code++) CODE_TEXT.push(String(code).padStart(3, ' '));

/** Collects DXF lines; group codes right-aligned in three columns as AutoCAD and ezdxf write them. */
export class TagWriter {
  private readonly lines: string[] = [];

  tag(code: number, value: string): void {
    this.lines.push(CODE_TEXT[code] ?? String(code).padStart(3, ' '), value);
  }
  real(code: number, value: number): void {
    this.tag(code, formatReal(value));
  }
  int(code: number, value: number): void {
    this.tag(code, formatInt(value));
  }
  point(code: number, p: Point3): void {
    this.tag(code, formatReal(p[0]));
    this.tag(code + 10, formatReal(p[1]));
    this.tag(code + 20, formatReal(p[2]));
  }
  point2(code: number, x: number, y: number): void {
    this.tag(code, formatReal(x));
    this.tag(code + 10, formatReal(y));
  }
  tags(tags: readonly DxfTag[] | undefined): void {
    if (!tags) return;
    for (const t of tags) this.tag(t.code, t.value);
  }
  text(): string {
    this.lines.push('');
    return this.lines.join('\n');
  }
}
