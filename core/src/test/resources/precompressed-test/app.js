console.log("identity");
