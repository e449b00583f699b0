/** Handles are uppercase hex without leading zeros, as DXF writes them. */
export const formatHandle = (n: number) => n.toString(16).toUpperCase();
