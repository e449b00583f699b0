/** Why a DXF file could not be read. */
export type DxfErrorCode = 'dxf_invalid' | 'dxf_truncated' | 'dxf_binary_unsupported' | 'dxf_too_large';

/** A DXF file the reader refuses, with a code the editor answers with. */
export class DxfError extends Error {
  readonly code: DxfErrorCode;
  constructor(code: DxfErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}
