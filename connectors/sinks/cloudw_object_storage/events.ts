/** Internal events of the `cloudw_object_storage` sink: what it logs and counts together. */
import type { ComponentContext } from '../../../lib/component.js';
import type { ObjectWritten } from './service.js';

/** Logs and counts written objects. */
export class ObjectStorageEvents {
  private readonly multipartUploads;
  constructor(private readonly ctx: ComponentContext) {
    this.multipartUploads = ctx.telemetry.counter('cloudw_object_storage_multipart_uploads_total');
  }
  /** One object written. */
  written(key: string, bytes: number, how: ObjectWritten): void {
    if (how.multipart) this.multipartUploads.add(1);
    this.ctx.log.debug('Object written.', { key, bytes, multipart: how.multipart, parts: how.parts });
  }
}
