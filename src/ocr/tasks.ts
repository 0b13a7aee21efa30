// Engine tasks of the OCR area.
import { ocrPage, type OcrTaskInput } from './page-ocr.ts';

export const ocrTasks = {
  'ocr.page': (input: OcrTaskInput) => ocrPage(input),
};
