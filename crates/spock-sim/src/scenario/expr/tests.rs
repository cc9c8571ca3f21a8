use super::*;

fn data() -> AppData {
    let row = |id: &str, name: &str, price: i64, qty: i64| {
        Row::from([
            ("id".to_string(), Value::Str(id.into())),
            ("name".to_string(), Value::Str(name.into())),
            ("price".to_string(), Value::Int(price)),
            ("qty".to_string(), Value::Int(qty)),
        ])
    };
    AppData {
        vars: BTreeMap::from([
            ("product".to_string(), Value::Str("7".into())),
            ("order".to_string(), Value::Int(1041)),
            ("note".to_string(), Value::Str(String::new())),
        ]),
        tables: BTreeMap::from([(
            "products".to_string(),
            vec![
                row("42", "Espresso Machine", 24900, 2),
                row("7", "Travel Mug", 1900, 1),
                row("17", "Coffee Grinder", 8900, 0),
            ],
        )]),
    }
}

fn eval(src: &str, d: &AppData) -> Result<Value, String> {
    let fields = |id: &str| (id == "pw").then(|| "hunter2".to_string());
    parse_expr(src)?.eval(&Ctx {
        data: d,
        item: None,
        field: &fields,
    })
}

fn run(src: &str, d: &mut AppData, item: Item) -> Result<(), String> {
    parse_stmt(src)?.exec(d, item, &|_| None)
}

fn int(i: i64) -> Value {
    Value::Int(i)
}

fn s(v: &str) -> Value {
    Value::Str(v.into())
}

#[test]
fn money_groups_thousands_and_keeps_cents() {
    assert_eq!(money(0), "$0.00");
    assert_eq!(money(1900), "$19.00");
    assert_eq!(money(51_700), "$517.00");
    assert_eq!(money(124_550), "$1,245.50");
    assert_eq!(money(100_000_005), "$1,000,000.05");
    assert_eq!(money(-250), "-$2.50");
}

#[test]
fn expressions_read_variables_rows_fields_and_sums() {
    let d = data();
    assert_eq!(eval("1 + 2 * 3", &d), Ok(int(7)), "* binds tighter");
    assert_eq!(eval("(1 + 2) * 3", &d), Ok(int(9)));
    assert_eq!(eval("order + 1", &d), Ok(int(1042)));
    assert_eq!(eval("products[product].name", &d), Ok(s("Travel Mug")));
    assert_eq!(eval("products['42'].price", &d), Ok(int(24900)));
    assert_eq!(
        eval("money(sum(products, item.qty * item.price))", &d),
        Ok(s("$517.00"))
    );
    assert_eq!(eval("sum(products, item.qty)", &d), Ok(int(3)));
    assert_eq!(eval("field(\"pw\") == 'hunter2'", &d), Ok(int(1)));
    assert_eq!(eval("field('nope')", &d), Ok(s("")), "no such field: empty");
    assert_eq!(eval("\"#\" + order", &d), Ok(s("#1041")), "+ joins strings");
    assert_eq!(eval("product == 7", &d), Ok(int(1)), "compared as text");
    assert_eq!(eval("note == '' && !(order < 1000) || 0", &d), Ok(int(1)));
    assert_eq!(eval("-order", &d), Ok(int(-1041)));
    // A row that is not there reads as its fields' zero values.
    assert_eq!(eval("products['999'].name", &d), Ok(s("")));
    assert_eq!(eval("products['999'].qty", &d), Ok(int(0)));
}

#[test]
fn type_errors_and_parse_errors_say_what_is_wrong() {
    let d = data();
    assert!(
        eval("money(product)", &d)
            .unwrap_err()
            .contains("money() of a string")
    );
    assert!(
        eval("product * 2", &d)
            .unwrap_err()
            .contains("needs integers")
    );
    assert!(eval("item.qty", &d).unwrap_err().contains("`item`"));
    assert!(parse_expr("1 +").unwrap_err().contains("expected a value"));
    assert!(
        parse_expr("lower(x)")
            .unwrap_err()
            .contains("unknown function")
    );
    assert!(parse_expr("'open").unwrap_err().contains("unterminated"));
    assert!(parse_expr("a b").unwrap_err().contains("unexpected text"));
    assert!(parse_stmt("order ++ 1").is_err());
}

#[test]
fn statements_change_variables_and_rows_keeping_their_types() {
    let mut d = data();
    run("products[product].qty += 1", &mut d, None).unwrap();
    assert_eq!(eval("products['7'].qty", &d), Ok(int(2)));
    run("item.qty -= 2", &mut d, Some(("products", 0))).unwrap();
    assert_eq!(eval("products['42'].qty", &d), Ok(int(0)));
    run("order = order + 1", &mut d, None).unwrap();
    run("product = 17", &mut d, None).unwrap();
    assert_eq!(
        d.vars["product"],
        s("17"),
        "a string variable stays a string"
    );
    run("note = 'a' + order", &mut d, None).unwrap();
    assert_eq!(d.vars["note"], s("a1042"));
    run("products[*].qty = item.qty + 5", &mut d, None).unwrap();
    assert_eq!(eval("sum(products, item.qty)", &d), Ok(int(17)));
    run("products[*].qty = 0", &mut d, None).unwrap();
    assert_eq!(eval("sum(products, item.qty)", &d), Ok(int(0)));
    // Refusals: a string into an integer, a row that is not there.
    assert!(
        run("order = 'soon'", &mut d, None)
            .unwrap_err()
            .contains("not an integer")
    );
    assert!(
        run("products['999'].qty = 1", &mut d, None)
            .unwrap_err()
            .contains("no row")
    );
    assert_eq!(d.vars["order"], int(1042), "unchanged by the refusal");
}

#[test]
fn names_are_checked_where_they_are_written() {
    let d = data();
    let scope = Scope {
        vars: &d.vars,
        tables: &d.tables,
        item: ItemScope::None,
    };
    let check = |src: &str, scope: &Scope| scope.check(&parse_expr(src).unwrap());
    assert_eq!(check("order + 1", &scope), Ok(()));
    assert!(
        check("ordr", &scope)
            .unwrap_err()
            .contains("unknown variable `ordr`")
    );
    assert!(
        check("items[product].qty", &scope)
            .unwrap_err()
            .contains("unknown table")
    );
    assert!(
        check("products[product].colour", &scope)
            .unwrap_err()
            .contains("colour")
    );
    assert!(check("item.qty", &scope).unwrap_err().contains("`item`"));
    assert_eq!(check("sum(products, item.qty)", &scope), Ok(()));
    let any = scope.with_item(ItemScope::Any);
    assert_eq!(check("item.name", &any), Ok(()));
    let st = |src: &str| scope.check_stmt(&parse_stmt(src).unwrap());
    assert_eq!(st("products[*].qty = item.qty"), Ok(()));
    assert!(
        st("item.qty = 0").is_err(),
        "no row bound outside a transition"
    );
    assert!(st("nope = 1").is_err());
}

#[test]
fn texts_fill_holes_and_keep_doubled_braces() {
    let d = data();
    let cx = Ctx {
        data: &d,
        item: Some(("products", 0)),
        field: &|_| None,
    };
    let t = Text::parse("{item.qty} × {money(item.price)} {{not a hole}}").unwrap();
    assert_eq!(t.eval(&cx).unwrap(), "2 × $249.00 {not a hole}");
    assert_eq!(
        Text::parse("a {'}'} b").unwrap().eval(&cx).unwrap(),
        "a } b",
        "a brace in a string does not end the hole"
    );
    assert_eq!(Text::parse("plain").unwrap().as_literal(), Some("plain"));
    assert_eq!(Text::parse("").unwrap().as_literal(), Some(""));
    assert!(Text::parse("{order").unwrap_err().contains("no `}`"));
    assert!(Text::parse("x } y").unwrap_err().contains("no `{`"));
    assert!(Text::parse("{1 +}").unwrap_err().contains("in {1 +}"));
}
