//! The gathered sweep table as Parquet (`results.parquet`): the same
//! columns as `results.csv`, typed — `point` INT64, the parameters DOUBLE,
//! `status` UTF-8, every recorded value an optional DOUBLE (null where a
//! point has none), `error` an optional UTF-8 string.

use super::gather::Table;
use parquet::basic::{ConvertedType, Repetition, Type as Physical};
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;
use std::path::Path;
use std::sync::Arc;

fn column(name: &str, physical: Physical, required: bool) -> parquet::errors::Result<Arc<Type>> {
    let mut b = Type::primitive_type_builder(name, physical).with_repetition(if required {
        Repetition::REQUIRED
    } else {
        Repetition::OPTIONAL
    });
    if physical == Physical::BYTE_ARRAY {
        b = b.with_converted_type(ConvertedType::UTF8);
    }
    Ok(Arc::new(b.build()?))
}

/// Writes `table` to `path`.
pub(super) fn write(path: &Path, table: &Table) -> parquet::errors::Result<()> {
    let mut fields = vec![column("point", Physical::INT64, true)?];
    for p in &table.parameters {
        fields.push(column(p, Physical::DOUBLE, true)?);
    }
    fields.push(column("status", Physical::BYTE_ARRAY, true)?);
    for v in &table.values {
        fields.push(column(v, Physical::DOUBLE, false)?);
    }
    fields.push(column("error", Physical::BYTE_ARRAY, false)?);
    let schema = Arc::new(
        Type::group_type_builder("sweep")
            .with_fields(fields)
            .build()?,
    );
    let file = std::fs::File::create(path)?;
    let mut w = SerializedFileWriter::new(file, schema, Default::default())?;
    let mut rg = w.next_row_group()?;
    let np = table.parameters.len();
    let nv = table.values.len();
    let mut i = 0;
    while let Some(mut col) = rg.next_column()? {
        if i == 0 {
            let v: Vec<i64> = table.rows.iter().map(|r| r.point as i64).collect();
            col.typed::<Int64Type>().write_batch(&v, None, None)?;
        } else if i <= np {
            let v: Vec<f64> = table.rows.iter().map(|r| r.parameters[i - 1]).collect();
            col.typed::<DoubleType>().write_batch(&v, None, None)?;
        } else if i == np + 1 {
            let v: Vec<ByteArray> = table.rows.iter().map(|r| r.status.into()).collect();
            col.typed::<ByteArrayType>().write_batch(&v, None, None)?;
        } else if i <= np + 1 + nv {
            let j = i - np - 2;
            let present: Vec<f64> = table.rows.iter().filter_map(|r| r.values[j]).collect();
            let def: Vec<i16> = table
                .rows
                .iter()
                .map(|r| i16::from(r.values[j].is_some()))
                .collect();
            col.typed::<DoubleType>()
                .write_batch(&present, Some(&def), None)?;
        } else {
            let present: Vec<ByteArray> = table
                .rows
                .iter()
                .filter_map(|r| r.error.as_deref().map(ByteArray::from))
                .collect();
            let def: Vec<i16> = table
                .rows
                .iter()
                .map(|r| i16::from(r.error.is_some()))
                .collect();
            col.typed::<ByteArrayType>()
                .write_batch(&present, Some(&def), None)?;
        }
        col.close()?;
        i += 1;
    }
    rg.close()?;
    w.close()?;
    Ok(())
}
